import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocsAssistant, type DocsCore } from '../../actors/docs/assistant.js';
import { createProviders } from '../../actors/llm/providers.js';
import { silentLogger } from '../../core/log.js';
import { createMetrics } from '../../core/metrics.js';
import { mountDocsApi } from '../../transports/http/docsApi.js';
import { makeCorpus, testConfig } from './fixtures.js';

let root: string;
let server: Server;
let base: string;
let assistant: DocsCore;
const metrics = createMetrics({ defaults: false });

beforeAll(async () => {
  root = makeCorpus();
  const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'offline' });
  assistant = createDocsAssistant({ config, providers: createProviders(config, { logger: silentLogger() }), persist: false });
  await assistant.ready();
  const app = express();
  mountDocsApi(app, { assistant, logger: silentLogger(), metrics });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(root, { recursive: true, force: true });
});

const post = (path: string, body: unknown, raw?: string) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw ?? JSON.stringify(body) });

describe('GET /api/search', () => {
  it('returns passages with path relative to the corpus, section, normalised score and text', async () => {
    const res = await fetch(`${base}/api/search?q=${encodeURIComponent('dossier médical conservation')}&k=2`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { passages: Array<{ path: string; section: string; score: number; text: string; anchor: string }> };
    expect(body.passages.length).toBeLessThanOrEqual(2);
    expect(body.passages[0]).toMatchObject({ path: 'rgpd/14-conservation.md', anchor: 'exemples' });
    expect(body.passages[0]!.score).toBeGreaterThan(0);
    expect(body.passages[0]!.score).toBeLessThanOrEqual(1);
    expect(body.passages[0]!.text).toContain('20 ans');
  });

  it.each([
    ['', 'q'],
    ['?k=3', 'q'],
    ['?q=%20%20', 'q'],
    ['?q=x&k=0', 'k'],
    ['?q=x&k=abc', 'k'],
    ['?q=x&k=500', 'k'],
    [`?q=${'a'.repeat(2001)}`, 'q'],
  ])('rejects %s with 400 and the zod issue on %s', async (qs, field) => {
    const res = await fetch(`${base}/api/search${qs}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; issues: Array<{ path: string[]; message: string }> };
    expect(body.error).toBe('invalid request');
    expect(body.issues.map((i) => i.path[0])).toContain(field);
  });
});

describe('POST /api/chat', () => {
  it('answers with sources (path, section, href) or refuses out of scope', async () => {
    const res = await post('/api/chat', { question: 'Combien de temps conserver un dossier médical ?' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { answer: string; outOfScope: boolean; sources: Array<{ path: string; section: string; href: string }> };
    expect(body.outOfScope).toBe(false);
    expect(body.answer).toContain('20 ans');
    expect(body.sources[0]).toEqual({ path: 'rgpd/14-conservation.md', section: 'Fiche n°14 : Gérer la durée de conservation › Exemples', href: '/docs/rgpd/14-conservation.md#exemples', lang: 'fr' });

    const out = (await (await post('/api/chat', { question: 'Comment réussir une mayonnaise maison ?', history: [] })).json()) as { outOfScope: boolean; sources: unknown[]; answer: string };
    expect(out).toMatchObject({ outOfScope: true, sources: [], answer: 'Cette information n’est pas dans la documentation.' });
  });

  it.each([
    [{}, 'question'],
    [{ question: '' }, 'question'],
    [{ question: 42 }, 'question'],
    [{ question: 'ok', history: [{ role: 'system', content: 'x' }] }, 'history'],
    [{ question: 'ok', history: 'nope' }, 'history'],
  ])('rejects %j with 400 and zod issues', async (body, field) => {
    const before = (await metrics.inputRejected.get()).values.reduce((n, v) => n + v.value, 0);
    const res = await post('/api/chat', body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { issues: Array<{ path: Array<string | number> }> };
    expect(json.issues.map((i) => i.path[0])).toContain(field);
    const after = (await metrics.inputRejected.get()).values.reduce((n, v) => n + v.value, 0);
    expect(after).toBe(before + 1);
  });

  it('rejects broken JSON with a JSON 400', async () => {
    const res = await post('/api/chat', undefined, '{"question": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid JSON body' });
  });
});

describe('POST /api/chat/stream (SSE)', () => {
  it('streams the offline answer as one delta numbered like its sources, then the whole answer', async () => {
    const res = await post('/api/chat/stream', { question: 'Combien de temps conserver un dossier médical ?' });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const events = text
      .trim()
      .split('\n\n')
      .map((block) => {
        const [ev, data] = block.split('\n');
        return { event: ev!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) as Record<string, unknown> };
      });
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
    const final = events.at(-1)!;
    expect(final.event).toBe('answer');
    expect(deltas).toHaveLength(1);
    expect(deltas.join('')).toBe(final.data.answer);
    expect((final.data.sources as unknown[]).length).toBeGreaterThan(0);
  });
});
