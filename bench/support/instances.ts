import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * Real `palabre serve` processes for the scale benches: one per instance, its own DATA_DIR and
 * INSTANCE_ID, optionally on a shared DATABASE_URL; ready once /readyz answers 200.
 */
export interface Instance {
  name: string;
  url: string;
  proc: ChildProcess;
}

export const freePort = (): Promise<number> => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});

export async function startInstance(name: string, dir: string, databaseUrl: string | undefined, env: NodeJS.ProcessEnv): Promise<Instance> {
  const port = await freePort();
  const full: NodeJS.ProcessEnv = {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dir, name), INSTANCE_ID: name,
    LOG_LEVEL: process.env.BENCH_LOGS ? 'info' : 'warn', LOG_FORMAT: 'json', ...env,
  };
  delete full.DATABASE_URL;
  if (databaseUrl) full.DATABASE_URL = databaseUrl;
  // BENCH_LOGS=1: the instances' JSON logs on this process's stderr (prefixed by nothing: grep "instance").
  const proc = spawn(process.execPath, ['bin/palabre.js', 'serve'], { env: full, stdio: ['ignore', process.env.BENCH_LOGS ? 'inherit' : 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      // /readyz, not /healthz: /healthz answers 200 while the surfaces are still starting.
      if ((await fetch(`${url}/readyz`)).ok) return { name, url, proc };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`instance ${name} did not become ready in 60 s`);
}

/** SIGTERM to each still running, and waits for them all to exit. */
export async function stopInstances(instances: Instance[]): Promise<void> {
  for (const x of instances) if (x.proc.exitCode === null && x.proc.signalCode === null) x.proc.kill('SIGTERM');
  await Promise.all(instances.map((x) => new Promise((r) => (x.proc.exitCode !== null || x.proc.signalCode !== null ? r(null) : x.proc.once('exit', r)))));
}
