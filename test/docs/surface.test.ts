import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import type { RunningServer } from '../../core/server.js';
import { startServer } from '../../actors/serve.js';
import { docsSurface, getDocsAssistant } from '../../actors/docs/surface.js';
import { makeCorpus } from './fixtures.js';

/** The docs surface inside `palabre serve`: index at start, API mounted, health, watch, stop. */
let root: string;
let data: string;
let running: RunningServer;
let base: string;

beforeAll(async () => {
  root = makeCorpus();
  data = mkdtempSync(join(tmpdir(), 'palabre-serve-'));
  const config = loadPalabreConfig({ env: { CORPUS_DIR: root, DATA_DIR: data, PORT: '0', MQTT_EMBEDDED_PORT: '0', CHAT_PROVIDER: 'offline' }, dotenvPath: null });
  running = await startServer({ config, logger: silentLogger(), surfaces: [async () => docsSurface] });
  base = running.ctx.publicUrl.replace(/\/$/, '');
});

afterAll(async () => {
  await running.shutdown('test');
  rmSync(root, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

describe('docs surface', () => {
  it('serves the API over the indexed corpus and exposes the running assistant', async () => {
    const res = await fetch(`${base}/api/search?q=dossier%20m%C3%A9dical`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { passages: Array<{ path: string }> };
    expect(body.passages[0]!.path).toBe('rgpd/14-conservation.md');
    expect(getDocsAssistant()?.documents().map((d) => d.path)).toContain('mcp/progress.mdx');
    const chat = (await (await fetch(`${base}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Progress token types?' }) })).json()) as { sources: Array<{ path: string }> };
    expect(chat.sources[0]!.path).toBe('mcp/progress.mdx');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/palabre_docs_answers_total\{state="answered",confidence="(high|low)"\} 1/);
    expect(metrics).toMatch(/palabre_docs_passages \d+/);
  });

  it('re-indexes a new file while serving (fs.watch)', async () => {
    writeFileSync(join(root, 'nouveau.md'), '# Nouveau\n\nLes ornithorynques pondent des œufs.\n');
    await expect
      .poll(async () => ((await (await fetch(`${base}/api/search?q=ornithorynques`)).json()) as { passages: Array<{ path: string }> }).passages[0]?.path, { timeout: 10_000, interval: 100 })
      .toBe('nouveau.md');
  });
});
