import { afterEach, describe, expect, it } from 'vitest';
import { isBreakerOpen } from '../../machines/breaker.js';
import { NNBSP } from '../../prompts/skull/postprocess.js';
import { APOLOGY_TEXT, INTERRUPTED_TEXT } from '../../machines/skullTypes.js';
import { startChart, type ChartRig } from './chartHarness.js';
import { ScriptedProvider, serverError, timeoutError } from './support.js';

/**
 * The 8 unit-test cases of the Skull spec's unit-test plan (docs/skull.md#tests-and-measurements), against the real
 * skull chart with real llmCall/breaker machines, a scripted provider and simulated time.
 * Case 1 (prompt assembly) is also in prompt.test.ts; case 8 (capabilities after restart) needs a
 * broker and is in e2e.test.ts.
 */
let rig: ChartRig | undefined;
afterEach(() => rig?.stop());

describe('spec unit tests', () => {
  it('1. prompt: the provider receives [SYSTEM] with the retained prompt_system, [RULES], [USER]', async () => {
    rig = startChart();
    rig.actor.send({ type: 'config.prompt', text: 'Tu es un crâne très poli.' });
    rig.actor.send({ type: 'ai.request', text: 'Présente-toi en deux phrases.' });
    await rig.flush();
    const call = rig.provider.calls[0]!;
    expect(call.system).toMatch(/^\[SYSTEM\] Tu es un crâne très poli\.\n\[RULES\] Réponds en français/);
    expect(call.messages[0]!.content).toMatch(/^\[USER\] Présente-toi en deux phrases\.\n\[CONTEXT\]/);
    // Retained prompt cleared → the prompt file's text again, no crash.
    rig.actor.send({ type: 'config.prompt', text: null });
    rig.actor.send({ type: 'ai.request', text: 'Encore ?' });
    await rig.flush();
    expect(rig.provider.calls[1]!.system).toMatch(/^\[SYSTEM\] Tu es Skull\./);
  });

  it('2. a 10-sentence reply is cut to 3 sentences ending cleanly', async () => {
    const provider = new ScriptedProvider().script({ kind: 'reply', text: Array.from({ length: 10 }, (_, i) => `Phrase ${i + 1} ici.`).join(' ') });
    rig = startChart({ provider });
    rig.actor.send({ type: 'ai.request', text: 'Parle longtemps.' });
    await rig.flush();
    expect(rig.published[0]!.response.text).toBe('Phrase 1 ici. Phrase 2 ici. Phrase 3 ici.');
  });

  it('3. two timeouts then a success: one publication, cumulative latency = backoffs', async () => {
    const provider = new ScriptedProvider().script({ kind: 'error', error: timeoutError() }, { kind: 'error', error: timeoutError() }, { kind: 'reply', text: 'Enfin !' });
    rig = startChart({ provider, settings: { backoffBaseMs: 200 } });
    rig.actor.send({ type: 'ai.request', text: 'Bonjour' });
    await rig.flush();
    expect(rig.provider.calls).toHaveLength(1);
    await rig.advance(300); // 200·2⁰ + 100 ms jitter (random = 0)
    expect(rig.provider.calls).toHaveLength(2);
    await rig.advance(500); // 200·2¹ + 100
    expect(rig.provider.calls).toHaveLength(3);
    expect(rig.published).toHaveLength(1);
    expect(rig.published[0]!.response.text).toBe(`Enfin${NNBSP}!`);
    expect(rig.published[0]!.usage!.latency_ms).toBe(800);
    expect(rig.published[0]!.usage!.model).toBe('gpt-5-mini');
  });

  it('4. five failures in 60 s open the breaker: the fallback model answers and ai/usage names it', async () => {
    const err = () => ({ kind: 'error' as const, error: serverError() });
    // 4 failed attempts on mini (1 + 3 retries) → the fallback round; nano's first attempt is the 5th
    // failure in the window → breaker opens; nano's retry answers.
    const provider = new ScriptedProvider().script(err(), err(), err(), err(), err(), { kind: 'reply', text: 'Réponse de secours.' });
    rig = startChart({ provider, settings: { backoffBaseMs: 0 } });
    rig.actor.send({ type: 'ai.request', text: 'Bonjour' });
    for (let i = 0; i < 6; i++) await rig.advance(400);
    expect(rig.provider.calls.map((c) => c.model)).toEqual(['gpt-5-mini', 'gpt-5-mini', 'gpt-5-mini', 'gpt-5-mini', 'gpt-5-nano', 'gpt-5-nano']);
    expect(rig.published[0]!.usage!.model).toBe('gpt-5-nano');
    expect(rig.actor.getSnapshot().context.stats.fallbacks).toBe(1);
    expect(isBreakerOpen(rig.actor.getSnapshot().context.breaker.getSnapshot())).toBe(true);
    // While open, turns go straight to nano (no failure needed); after the 30 s cool-down, mini again.
    rig.actor.send({ type: 'ai.request', text: 'Et là ?' });
    await rig.flush();
    expect(rig.provider.calls.at(-1)!.model).toBe('gpt-5-nano');
    expect(rig.published.at(-1)!.usage!.model).toBe('gpt-5-nano');
    await rig.advance(30_000);
    expect(isBreakerOpen(rig.actor.getSnapshot().context.breaker.getSnapshot())).toBe(false);
    rig.actor.send({ type: 'ai.request', text: 'Et maintenant ?' });
    await rig.flush();
    expect(rig.provider.calls.at(-1)!.model).toBe('gpt-5-mini');
    expect(rig.published.at(-1)!.usage!.model).toBe('gpt-5-mini');
  });

  it('4b. final failure on both models → the apology', async () => {
    const provider = new ScriptedProvider();
    for (let i = 0; i < 8; i++) provider.script({ kind: 'error', error: serverError() });
    rig = startChart({ provider, settings: { backoffBaseMs: 0 } });
    rig.actor.send({ type: 'ai.request', text: 'Bonjour' });
    for (let i = 0; i < 10; i++) await rig.advance(400);
    expect(rig.published.map((p) => p.response.text)).toEqual([APOLOGY_TEXT]);
    expect(rig.published[0]!.usage).toBeUndefined();
  });

  it('5. soft policy: "argent" gets the polite redirect without calling the model', async () => {
    rig = startChart();
    rig.actor.send({ type: 'asr.text', text: 'Comment gagner de l’argent vite ?' });
    await rig.flush();
    expect(rig.provider.calls).toHaveLength(0);
    expect(rig.published[0]!.response.text).toBe(`Sujet sensible, changeons de thème amusant${NNBSP}!`);
    expect(rig.published[0]!.response.text).not.toMatch(/euro|banque|invest/i);
    expect(rig.actor.getSnapshot().context.stats.redirected).toBe(1);
  });

  it('6. debounce: the same asr/text twice 100 ms apart → one generation', async () => {
    rig = startChart();
    rig.actor.send({ type: 'asr.text', text: 'raconte une blague' });
    await rig.flush();
    expect(rig.published).toHaveLength(1); // answered already: the second is not merely "busy"
    await rig.advance(100);
    rig.actor.send({ type: 'asr.text', text: 'Raconte une blague.' });
    await rig.flush();
    expect(rig.provider.calls).toHaveLength(1);
    expect(rig.actor.getSnapshot().context.stats.duplicates).toBe(1);
    // After the 300 ms window the same text is a new utterance; a different text never waits.
    await rig.advance(250);
    rig.actor.send({ type: 'asr.text', text: 'raconte une blague' });
    await rig.flush();
    rig.actor.send({ type: 'asr.text', text: 'une autre' });
    await rig.flush();
    expect(rig.provider.calls).toHaveLength(3);
  });

  it('7. cancel: ai/cancel aborts the call, publishes (interrompu) and frees busy', async () => {
    const provider = new ScriptedProvider();
    provider.manual = true;
    rig = startChart({ provider });
    rig.actor.send({ type: 'ai.request', text: 'Raconte une longue histoire.' });
    await rig.flush();
    expect(provider.waiting).toBe(1);
    rig.actor.send({ type: 'asr.text', text: 'ignoré car occupé' });
    rig.actor.send({ type: 'ai.cancel' });
    await rig.flush();
    expect(provider.aborted).toHaveLength(1);
    expect(provider.aborted[0]!.signal?.aborted).toBe(true);
    expect(rig.published.map((p) => p.response.text)).toEqual([INTERRUPTED_TEXT]);
    const snap = rig.actor.getSnapshot();
    expect(snap.matches({ turn: 'idle' })).toBe(true);
    expect(snap.context.stats.busyIgnored).toBe(1);
    expect(snap.context.stats.cancelled).toBe(1);
    provider.manual = false;
    rig.actor.send({ type: 'asr.text', text: 'bonjour' });
    await rig.flush();
    expect(rig.published).toHaveLength(2);
  });

  it('per-model timeouts: 12 s for mini, 6 s for the nano fallback, then the apology', async () => {
    const provider = new ScriptedProvider();
    provider.manual = true;
    rig = startChart({ provider, settings: { maxRetries: 0 } });
    rig.actor.send({ type: 'ai.request', text: 'Bonjour' });
    await rig.flush();
    await rig.advance(11_999);
    expect(provider.calls.map((c) => c.model)).toEqual(['gpt-5-mini']);
    await rig.advance(1);
    expect(provider.calls.map((c) => c.model)).toEqual(['gpt-5-mini', 'gpt-5-nano']);
    expect(provider.aborted).toHaveLength(1);
    await rig.advance(5_999);
    expect(rig.published).toHaveLength(0);
    await rig.advance(1);
    expect(rig.published.map((p) => p.response.text)).toEqual([APOLOGY_TEXT]);
  });

  it('empty reply → one retry, then the apology', async () => {
    const provider = new ScriptedProvider().script({ kind: 'reply', text: '```\n```' }, { kind: 'reply', text: '<br/>' });
    rig = startChart({ provider });
    rig.actor.send({ type: 'ai.request', text: 'Bonjour' });
    await rig.flush();
    expect(provider.calls).toHaveLength(2);
    expect(rig.published.map((p) => p.response.text)).toEqual([APOLOGY_TEXT]);
  });

  it('queue: at most 3 in flight, the rest dropped and counted, answers in order', async () => {
    const provider = new ScriptedProvider();
    provider.manual = true;
    rig = startChart({ provider });
    for (let i = 1; i <= 5; i++) rig.actor.send({ type: 'ai.request', text: `question ${i}` });
    await rig.flush();
    const ctx = rig.actor.getSnapshot().context;
    expect(ctx.queue.map((j) => j.text)).toEqual(['question 2', 'question 3']);
    expect(ctx.stats.dropped).toBe(2);
    for (let i = 0; i < 3; i++) {
      provider.release();
      await rig.flush();
    }
    expect(provider.calls.map((c) => c.offlineHints?.user)).toEqual(['question 1', 'question 2', 'question 3']);
    expect(rig.published).toHaveLength(3);
    expect(rig.actor.getSnapshot().matches({ turn: 'idle' })).toBe(true);
  });

  it('a new retained config applies to the next turn without restart', async () => {
    rig = startChart();
    rig.actor.send({ type: 'config.ia', config: { model: 'gpt-5-nano', max_tokens: 100 } });
    rig.actor.send({ type: 'ai.request', text: 'Bonjour' });
    await rig.flush();
    expect(rig.provider.calls[0]!.model).toBe('gpt-5-nano');
    expect(rig.provider.calls[0]!.maxTokens).toBe(100);
    rig.actor.send({ type: 'config.ia', config: null });
    rig.actor.send({ type: 'ai.request', text: 'Bonjour' });
    await rig.flush();
    expect(rig.provider.calls[1]!.model).toBe('gpt-5-mini');
  });
});
