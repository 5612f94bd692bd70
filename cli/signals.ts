import { EXIT } from './definitions.js';

/**
 * Ctrl-C under `npm start` reaches node twice: once from the terminal (the whole foreground
 * process group gets SIGINT) and once forwarded by npm, which relays SIGINT and SIGTERM to its
 * script. Both copies land within milliseconds; a person's second Ctrl-C comes much later. This
 * tells them apart so that one Ctrl-C is one graceful stop (exit 0) and only a real second one
 * means "exit now".
 */
export const ECHO_WINDOW_MS = 300;

export type SignalKind = 'first' | 'echo' | 'again';

/** A classifier with its own memory: call it with each signal as it arrives. */
export function signalClassifier(now: () => number = () => performance.now()): (sig: NodeJS.Signals) => SignalKind {
  let first: { sig: NodeJS.Signals; at: number } | undefined;
  return (sig) => {
    const at = now();
    if (!first) {
      first = { sig, at };
      return 'first';
    }
    return sig === first.sig && at - first.at < ECHO_WINDOW_MS ? 'echo' : 'again';
  };
}

/**
 * Catches SIGINT and SIGTERM from now on, for a command that must stop gracefully. Without a
 * listener their default action ends the process at once, before any exit hook runs (pino's exit
 * hook writes what an asynchronous log destination still holds). The first signal calls
 * `onFirst`; the copy npm relays is ignored; a real second one means "now": `<name>: second
 * signal, exiting now` on stderr and exit 1. Returns the function to call once the stop is done:
 * from then on a signal is ignored, since the process is exiting. npm's relayed copy can arrive
 * that late on a busy machine, and the default action would end the process by the signal, which
 * npm then reports as a crash of `npm start`.
 */
export function catchStopSignals(name: string, stderr: { write(text: string): unknown }, onFirst: (sig: NodeJS.Signals) => void): () => void {
  const classify = signalClassifier();
  const onSignal = (sig: NodeJS.Signals) => {
    const kind = classify(sig);
    if (kind === 'echo') return;
    if (kind === 'again') {
      stderr.write(`${name}: second signal, exiting now\n`);
      process.exit(EXIT.failure);
    }
    onFirst(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // One listener per process, however many commands ran in it (the tests run several).
    for (const sig of ['SIGINT', 'SIGTERM'] as const) if (!process.listeners(sig).includes(ignoreSignal)) process.on(sig, ignoreSignal);
  };
}

function ignoreSignal(): void {}
