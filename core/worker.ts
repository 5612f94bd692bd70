import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on a module next to the caller, from the compiled output (`dist/…/x.js`)
 * or from the TypeScript sources (tsx, vitest), where the worker loads its module through tsx too.
 *
 *   startWorker(import.meta.url, 'recordingWorker', { workerData })
 */
export function startWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (callerUrl.endsWith('.js')) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  return new Worker(`const { tsImport } = await import('tsx/esm/api'); await tsImport(${JSON.stringify(entry)}, ${JSON.stringify(callerUrl)});`, { ...options, eval: true });
}
