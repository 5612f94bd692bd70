import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * A benchmark's load generator in its own process (so its CPU is not counted as the server's),
 * spoken to by typed messages: `next('fake')` waits for the first message of that type.
 */
export type LoadMsg = { type: string; [k: string]: unknown };

export interface LoadChild {
  child: ChildProcess;
  next(type: string): Promise<LoadMsg>;
}

export function forkLoad(moduleUrl: URL): LoadChild {
  const child = fork(fileURLToPath(moduleUrl), [], { execArgv: ['--import', 'tsx'] });
  const messages: LoadMsg[] = [];
  const waiters: Array<() => void> = [];
  child.on('message', (m) => {
    messages.push(m as LoadMsg);
    for (const w of waiters.splice(0)) w();
  });
  async function next(type: string): Promise<LoadMsg> {
    for (;;) {
      const m = messages.find((x) => x.type === type);
      if (m) return m;
      await new Promise<void>((r) => waiters.push(r));
    }
  }
  return { child, next };
}
