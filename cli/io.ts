/**
 * What a command reads and writes. `cli/main.ts` passes the process's streams and environment;
 * tests pass their own to capture output. Every `cli/commands/<name>.ts` exports
 *
 *   export async function run(args: string[], io: CliIo = processIo()): Promise<number>
 *
 * returning the exit code (0 ok, 1 failure, 2 usage or configuration error).
 */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
