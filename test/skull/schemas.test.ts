import { describe, expect, it } from 'vitest';
import { cancelSchema, iaConfigFor, iaConfigSchema, MAX_PAYLOAD_BYTES, parsePayload, promptSystemSchema, textInputSchema } from '../../transports/mqtt/skullSchemas.js';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('Skull payload validation', () => {
  it('accepts the spec examples', () => {
    expect(parsePayload(b('{ "ts_ms": 0, "text": "raconte une blague" }'), textInputSchema)).toEqual({ ok: true, value: { ts_ms: 0, text: 'raconte une blague' } });
    const ia = parsePayload(b('{"model":"gpt-5-mini","lang":"fr","eos_ms":800,"max_tokens":256,"temperature":0.7,"top_p":0.9}'), iaConfigSchema);
    expect(ia.ok).toBe(true);
    expect(parsePayload(b('{"text":"Tu es un crâne joyeux."}'), promptSystemSchema).ok).toBe(true);
    expect(parsePayload(b(''), cancelSchema, {})).toEqual({ ok: true, value: {} });
  });

  it.each([
    ['not json', b('raconte'), 'not_json'],
    ['wrong type', b('{"text":42}'), 'invalid'],
    ['missing text', b('{"ts_ms":1}'), 'invalid'],
    ['empty text', b('{"text":"   "}'), 'invalid'],
    ['unknown field', b('{"text":"ok","extra":1}'), 'invalid'],
    ['array', b('[1,2]'), 'invalid'],
    ['binary', Buffer.from([0xff, 0xfe, 0x00, 0x81]), 'not_utf8'],
    ['too large', Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x20), 'too_large'],
  ])('rejects %s', (_name, payload, reason) => {
    const r = parsePayload(payload, textInputSchema);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe(reason);
  });

  it('rejects bad config values', () => {
    expect(parsePayload(b('{"temperature":5}'), iaConfigSchema).ok).toBe(false);
    expect(parsePayload(b('{"model":"rm -rf /"}'), iaConfigSchema).ok).toBe(false);
    expect(parsePayload(b('{"max_tokens":-1}'), iaConfigSchema).ok).toBe(false);
  });
});

describe('skull/config/ia against what the service offers', () => {
  const offered = iaConfigFor({ models: ['gpt-6.1-terra', 'gpt-6-luna'], lang: 'fr' });
  const b = (s: string) => Buffer.from(s);
  it('accepts an offered model and the language (with or without region)', () => {
    expect(parsePayload(b('{"model":"gpt-6-luna","lang":"fr"}'), offered)).toEqual({ ok: true, value: { model: 'gpt-6-luna', lang: 'fr' } });
    expect(parsePayload(b('{"lang":"fr-FR","temperature":0.5}'), offered).ok).toBe(true);
  });
  it('rejects any other model or language, naming what is offered', () => {
    expect(parsePayload(b('{"model":"gpt-5-mini"}'), offered)).toEqual({ ok: false, reason: 'invalid', detail: 'model: gpt-5-mini is not offered (ai/capabilities.models: gpt-6.1-terra, gpt-6-luna)' });
    expect(parsePayload(b('{"lang":"en-US"}'), offered)).toEqual({ ok: false, reason: 'invalid', detail: 'lang: en-US is not supported (ai/capabilities.lang: fr)' });
    // The shape checks still come first.
    expect(parsePayload(b('{"model":"gpt-6-luna","extra":1}'), offered).ok).toBe(false);
  });
});
