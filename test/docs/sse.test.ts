import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatAnswer, DocsAssistant } from '../../machines/chatContract.js';
import { silentLogger } from '../../core/log.js';
import { openStore, type Db } from '../../core/store/db.js';
import { mountDocsApi } from '../../transports/http/docsApi.js';
import { mountDocsPages } from '../../web/docs/docsMount.js';
import { ChatConfigStore } from '../../actors/docs/chatConfigStore.js';
import { sqliteAppStore } from '../../core/store/appStore.js';
import { createAdminAuth } from '../../core/admin/adminAuth.js';
import { PORTABLE_MIGRATIONS } from '../support/migrations.js';

/**
 * One SSE writer (transports/http/sse.ts) for the API and the pages: a retried model call's
 * `reset` reaches both, between the failed attempt's deltas and the new ones.
 */
const answer: ChatAnswer = { state: 'answered', answer: 'Vrai.', outOfScope: false, confidence: 'high', lang: 'fr', removedMarks: 0, sources: [], flagged: [], provider: 'offline', model: 'offline' };
const retrying: DocsAssistant = {
  search: () => [],
  defaults: () => ({ model: 'm', k: 5, threshold: 0.2, confident: 0.5, temperature: 0, maxTokens: 100, historyTurns: 0 }),
  documents: () => [],
  readDocument: () => undefined,
  providerName: () => 'offline',
  async ask(req) {
    req.onDelta?.('Faux ');
    req.onReset?.();
    req.onDelta?.('Vrai.');
    return answer;
  },
};

let server: Server;
let base: string;
let dir: string;
let db: Db;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'palabre-sse-'));
  db = openStore({ path: join(dir, 'p.db') });
  const app = express();
  mountDocsApi(app, { assistant: retrying, logger: silentLogger() });
  const config = { ADMIN_PASSWORD: undefined, SESSION_SECRET: 'test-session-secret-0123456789' };
  const store = sqliteAppStore(db, PORTABLE_MIGRATIONS);
  mountDocsPages({ app, db, store, admin: createAdminAuth({ db, store, config, logger: silentLogger() }), logger: silentLogger(), assistant: retrying, config, chatConfig: new ChatConfigStore(store, silentLogger()) });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const events = (body: string): string[] => [...body.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((m) => `${m[1]}:${m[1] === 'delta' ? (JSON.parse(m[2]!) as { text: string }).text : ''}`);

describe('one SSE writer', () => {
  it('the API stream and the page stream both say `reset` between the attempts', async () => {
    const api = await fetch(`${base}/api/chat/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'q' }) });
    expect(api.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(events(await api.text())).toEqual(['delta:Faux ', 'reset:', 'delta:Vrai.', 'answer:']);
    const page = await fetch(`${base}/assistant/ask`, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/x-www-form-urlencoded' }, body: 'question=q' });
    expect(page.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(events(await page.text())).toEqual(['delta:Faux ', 'reset:', 'delta:Vrai.', 'done:']);
  });
});
