import { PassThrough } from 'node:stream';
import type { CliIo } from '../../cli/io.js';

/** A command's standard streams captured in memory, for running `palabre` commands in process. */
export function captureIo(env: Record<string, string>): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (c: Buffer) => (o += c.toString()));
  stderr.on('data', (c: Buffer) => (e += c.toString()));
  return { stdout, stderr, env, out: () => o, err: () => e };
}
