import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * A real process: once its stop is done, a signal that arrives late (npm's relayed copy of Ctrl-C
 * on a busy machine) must not end it by the signal's default action, which npm reports as a crash.
 */
function run(script: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
}

const catching = `import { catchStopSignals } from './cli/signals.ts';`;

describe('stop signals of palabre serve and palabre skull', () => {
  it('a signal after the stop is done is ignored: the process ends with its own exit code', async () => {
    const r = await run(`${catching}
      const release = catchStopSignals('t', process.stderr, () => undefined);
      release();
      process.kill(process.pid, 'SIGINT');
      setTimeout(() => process.exit(0), 100);`);
    expect(r).toMatchObject({ code: 0, signal: null });
  });

  it('the first signal calls the stop once, its copy within the echo window is ignored, a later one exits 1', async () => {
    const r = await run(`${catching}
      let stops = 0;
      catchStopSignals('t', process.stderr, () => (stops += 1));
      process.kill(process.pid, 'SIGINT');
      setTimeout(() => process.kill(process.pid, 'SIGINT'), 20);
      setTimeout(() => { process.stderr.write('stops=' + stops + '\\n'); process.kill(process.pid, 'SIGINT'); }, 700);
      setTimeout(() => process.exit(0), 3000);`);
    expect(r.stderr).toContain('stops=1');
    expect(r.stderr).toContain('t: second signal, exiting now');
    expect(r).toMatchObject({ code: 1, signal: null });
  });
});
