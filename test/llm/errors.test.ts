/** Pure pieces: retry-after parsing, status → kind, and the capability table. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_CAPABILITIES, capabilitiesFor, registerModelCapabilities, resetModelCapabilities } from '../../actors/llm/capabilities.js';
import { errorFromUnknown, kindFromStatus, parseRetryAfter } from '../../actors/llm/llmErrors.js';
import { openAIParams } from '../../actors/llm/openai.js';

describe('parseRetryAfter', () => {
  it('reads retry-after-ms first, then seconds, then an HTTP date', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '3' }))).toBe(250);
    expect(parseRetryAfter({ 'retry-after': '1.5' })).toBe(1500);
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Mon, 30 Nov 2026 12:00:04 GMT' }, now)).toBe(4000);
    expect(parseRetryAfter({ 'retry-after': 'Mon, 30 Nov 2026 11:00:00 GMT' }, now)).toBe(0);
  });

  it('is undefined when absent, empty, negative or unreadable', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '' })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-1' })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
  });
});

describe('kinds', () => {
  it('maps statuses', () => {
    expect([429, 500, 502, 529, 408, 401, 403, 404, 400, 422].map(kindFromStatus)).toEqual([
      'rate_limited', 'server', 'server', 'server', 'timeout', 'auth', 'auth', 'not_found', 'bad_request', 'bad_request',
    ]);
  });

  it('maps thrown values without status', () => {
    expect(errorFromUnknown('openai', new SyntaxError('Unexpected end of JSON input')).kind).toBe('malformed');
    expect(errorFromUnknown('openai', new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) })).kind).toBe('network');
    expect(errorFromUnknown('openai', new DOMException('The operation was aborted', 'AbortError')).kind).toBe('aborted');
    expect(errorFromUnknown('openai', new DOMException('timed out', 'TimeoutError')).kind).toBe('timeout');
    expect(errorFromUnknown('gemini', new Error('boom ?key=AIzaSyA1234567890123456789012')).message).not.toContain('AIzaSyA1234567890123456789012');
  });
});

describe('capability table', () => {
  afterEach(() => resetModelCapabilities());

  it('GPT-5 family and o-series: no temperature/top_p, max_completion_tokens, reasoning_effort', () => {
    for (const m of ['gpt-5', 'gpt-5-mini', 'gpt-5-nano-2025-08-07', 'gpt-5.1', 'o3', 'o4-mini', 'o1-preview']) {
      expect(capabilitiesFor('openai', m), m).toMatchObject({ temperature: false, topP: false, limitField: 'max_completion_tokens', reasoningEffort: true });
    }
  });

  it('GPT-6 family (the Skull defaults): reasoning models whose low-latency effort is `none`', () => {
    for (const m of ['gpt-6.1-terra', 'gpt-6-luna', 'openai/gpt-6.1-sol']) {
      expect(capabilitiesFor('openai', m), m).toMatchObject({ temperature: false, topP: false, limitField: 'max_completion_tokens', reasoningEffort: true, minimalEffort: 'none' });
    }
    // What Skull sends with its settings (temperature 0.7, top_p 0.9, 256 tokens, minimal effort).
    expect(openAIParams({ model: 'gpt-6.1-terra', messages: [{ role: 'user', content: 'Salut' }], temperature: 0.7, topP: 0.9, maxTokens: 256, reasoningEffort: 'minimal' }))
      .toEqual({ model: 'gpt-6.1-terra', messages: [{ role: 'user', content: 'Salut' }], max_completion_tokens: 256, reasoning_effort: 'none' });
  });

  it('other OpenAI-compatible models: max_tokens, temperature, top_p', () => {
    for (const m of ['gpt-4.1-mini', 'gpt-4o', 'deepseek-chat', 'llama3.1:8b', 'qwen2.5', 'omni-moderation']) {
      expect(capabilitiesFor('openai', m), m).toMatchObject({ temperature: true, topP: true, limitField: 'max_tokens', reasoningEffort: false });
    }
    expect(capabilitiesFor('openai', 'gpt-5-chat-latest')).toMatchObject({ temperature: true, reasoningEffort: false, limitField: 'max_completion_tokens' });
  });

  it('Anthropic: no sampling knobs (API 2026-10-21)', () => {
    expect(capabilitiesFor('anthropic', 'claude-sonnet-5-5')).toMatchObject({ temperature: false, topP: false });
  });

  it('is extensible at run time, before the built-in rows', () => {
    registerModelCapabilities({ pattern: /^my-reasoner/, caps: { temperature: false, limitField: 'max_completion_tokens' }, note: 'test' });
    expect(capabilitiesFor('openai', 'my-reasoner-7b')).toMatchObject({ temperature: false, topP: true, limitField: 'max_completion_tokens' });
  });

  it('every built-in row is in the table of docs/providers.md', () => {
    const doc = readFileSync(new URL('../../docs/providers.md', import.meta.url), 'utf8');
    for (const row of BUILTIN_CAPABILITIES) expect(doc, row.note).toContain(row.note);
  });
});
