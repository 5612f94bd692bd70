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
