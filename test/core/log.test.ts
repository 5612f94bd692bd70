import { describe, expect, it } from 'vitest';
import type { DestinationStream } from 'pino';
import { createLogger, redactText } from '../../core/log.js';
import { coreSection } from '../../core/config/sections/coreSection.js';
import { PALABRE_SECTIONS } from '../../actors/palabreConfig.js';

const OPENAI_KEY = 'sk-proj-Abc123def456ghi789';
const ANTHROPIC_KEY = 'sk-ant-api03-zyxwvu987654';
const GEMINI_KEY = 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQ';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5kaWRhdGUtMSIsInBsYW4iOiJwcmVtaXVtIn0.8yXh1x2Y-Wq3dEj4aZ0c8B7Vb6n5M4l3K2j1H0g9F8e';
const SECRETS = [OPENAI_KEY, ANTHROPIC_KEY, GEMINI_KEY, JWT, 'dXNlcjpwYXNzd29yZA==', 'custom-ollama-key-42'];

/** A logger writing to memory; returns the JSON lines as they would reach stdout. */
function capture(): { log: ReturnType<typeof createLogger>; lines: () => string[] } {
  const chunks: string[] = [];
  const stream: DestinationStream = { write: (s: string) => void chunks.push(s) };
  return { log: createLogger({ destination: stream, level: 'trace' }), lines: () => chunks.join('').trim().split('\n') };
}

describe('log redaction (asserted on the written lines)', () => {
  it('removes API keys, JWTs, Authorization headers and ?key= URLs wherever they appear', () => {
    const { log, lines } = capture();
    log.info({ headers: { authorization: `Bearer ${JWT}`, Authorization: `Bearer ${OPENAI_KEY}` } }, 'outgoing');
    log.info({ req: { headers: { authorization: 'Basic dXNlcjpwYXNzd29yZA==', 'x-api-key': ANTHROPIC_KEY } } }, 'incoming');
    log.info({ request: { options: { headers: { 'x-goog-api-key': GEMINI_KEY } } } }, 'deep header');
    log.info({ url: `wss://generativelanguage.googleapis.com/ws/Bidi?key=${GEMINI_KEY}` }, 'live socket');
    log.warn(`calling https://api.example/v1?key=${GEMINI_KEY}&alt=sse`);
    log.error({ err: new Error(`401 for ${OPENAI_KEY} at https://x/y?token=${JWT}`) }, 'provider failed');
    log.error(new Error(`direct error with ${ANTHROPIC_KEY}`));
    log.info({ apiKey: 'custom-ollama-key-42', config: { GEMINI_API_KEY: GEMINI_KEY } }, 'config');
    log.info({ detail: { nested: { text: `token ${JWT} in free text` } } }, 'nested');
    log.info('format %s and %o', OPENAI_KEY, { k: ANTHROPIC_KEY });
    const out = lines();
    expect(out).toHaveLength(10);
    for (const line of out) {
      const parsed = JSON.parse(line) as Record<string, unknown>; // still valid JSON after scrubbing
      expect(parsed.level).toBeTypeOf('number');
      for (const secret of SECRETS) expect(line).not.toContain(secret);
    }
    expect(out[0]).toContain('"authorization":"[redacted]"');
    expect(out[0]).toContain('"Authorization":"[redacted]"');
    expect(out[3]).toContain('?key=[redacted]');
    expect(out[4]).toContain('&alt=sse'); // the rest of the URL survives
    expect(out[5]).toContain('provider failed');
  });

  it('keeps ordinary text intact and JSON escapes valid', () => {
    const { log, lines } = capture();
    log.info({ topic: 'skull/asr/text', text: 'Bonjour "crâne", où est la clé ?', q: 'a?key="quoted' }, 'message reçu');
    const [line] = lines();
    const parsed = JSON.parse(line!) as { topic: string; text: string; msg: string };
    expect(parsed.topic).toBe('skull/asr/text');
    expect(parsed.text).toBe('Bonjour "crâne", où est la clé ?');
    expect(parsed.msg).toBe('message reçu');
  });

  it('redactText scrubs a bare string', () => {
    expect(redactText(`Bearer ${JWT}`)).toBe('Bearer [redacted]');
    expect(redactText(`https://h/p?api_key=abc&x=1`)).toBe('https://h/p?api_key=[redacted]&x=1');
    expect(redactText(`key ${GEMINI_KEY}.`)).toBe('key [redacted-key].');
  });
});

describe('every secret a configuration section declares stays out of log lines', () => {
  it('its value is redacted as a field, at the top and nested, whatever it looks like', () => {
    const declared = [coreSection, ...PALABRE_SECTIONS].flatMap((section) => section.secrets ?? []);
    expect(declared).toContain('SKULL_API_KEY');
    for (const key of declared) {
      const { log, lines } = capture();
      const value = key === 'DATABASE_URL' ? 'postgres://palabre:plain-value-7Qz@db:5432/palabre' : 'plain-value-7Qz';
      log.info({ [key]: value, config: { [key]: value } }, 'config');
      expect(lines()[0], key).not.toContain('plain-value-7Qz');
    }
  });
});

