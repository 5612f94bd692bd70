/** The offline provider: deterministic, honest, pluggable per purpose. */
import { afterEach, describe, expect, it } from 'vitest';
import { createOfflineProvider, registerOfflineResponder } from '../../actors/llm/offline.js';
import type { GenerateRequest } from '../../machines/llmPort.js';

const offline = createOfflineProvider();
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const req = (extra: Partial<GenerateRequest> = {}): GenerateRequest => ({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Bonjour' }], ...extra });

describe('offline provider', () => {
  it('says plainly that it is the offline provider, and is deterministic', async () => {
    const a = await offline.generate(req({ system: 'sys' }));
    const b = await offline.generate(req({ system: 'sys' }));
    expect(a.text).toMatch(/hors ligne/i);
    expect(a.text).toContain('offline');
    expect(a).toMatchObject({ provider: 'offline', model: 'offline', finishReason: 'stop' });
    expect({ ...a, usage: { ...a.usage, latencyMs: 0 } }).toEqual({ ...b, usage: { ...b.usage, latencyMs: 0 } });
    expect(a.usage.inputTokens).toBeGreaterThan(0);
  });

  it('uses the responder registered for the purpose; others keep the default', async () => {
    cleanups.push(registerOfflineResponder('skull', (r) => `Le crâne répond à « ${r.messages.at(-1)?.content ?? ''} ».`));
    expect((await offline.generate(req({ purpose: 'skull' }))).text).toBe('Le crâne répond à « Bonjour ».');
    expect((await offline.generate(req({ purpose: 'chat' }))).text).toMatch(/hors ligne/i);
  });

  it('a responder can return citations (docs assistant) and read offlineHints (T2)', async () => {
    cleanups.push(registerOfflineResponder('t2', (r) => ({ text: String(r.offlineHints?.answer), citations: [{ sourceId: 'fiche' }] })));
    const r = await offline.generate(req({ purpose: 't2', offlineHints: { answer: 'Le loyer est de 900 $.' } }));
    expect(r.text).toBe('Le loyer est de 900 $.');
    expect(r.citations).toEqual([{ sourceId: 'fiche' }]);
  });

  it('with documents and no responder, answers extractively from the first passage, cited', async () => {
    const r = await offline.generate(req({ documents: [{ id: 'd1', title: 'Durées', source: 'a.md', text: 'Les données sont conservées trois ans. Ensuite elles sont effacées.' }] }));
    expect(r.text).toContain('Les données sont conservées trois ans.');
    expect(r.text).not.toContain('effacées');
    expect(r.citations).toEqual([{ sourceId: 'd1', citedText: 'Les données sont conservées trois ans.' }]);
  });

  it('streams word deltas through onDelta', async () => {
    cleanups.push(registerOfflineResponder('skull', () => 'un deux trois'));
    const deltas: string[] = [];
    await offline.generate(req({ purpose: 'skull', onDelta: (d) => deltas.push(d) }));
    expect(deltas).toEqual(['un ', 'deux ', 'trois']);
  });

  it('an unregistered responder is gone; a throwing responder is a typed error', async () => {
    const off = registerOfflineResponder('x', () => 'X');
    off();
    expect((await offline.generate(req({ purpose: 'x' }))).text).toMatch(/hors ligne/i);
    cleanups.push(registerOfflineResponder('boom', () => { throw new Error('nope'); }));
    await expect(offline.generate(req({ purpose: 'boom' }))).rejects.toMatchObject({ name: 'LlmError', kind: 'bad_request', provider: 'offline' });
  });
});
