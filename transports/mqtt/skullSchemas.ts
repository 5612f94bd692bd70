import { z } from 'zod';

/**
 * Every byte that enters the Skull service, validated. Payloads are JSON objects as in
 * docs/skull.md#topics; unknown fields are rejected (strict) so that a typo in a device's payload
 * is reported on ai/health instead of silently ignored.
 */

export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Longest user text accepted (far above one spoken sentence, far below the prompt budget). */
const MAX_TEXT_CHARS = 2000;

const tsMs = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/**
 * The length is checked before the trim, emptiness after it: zod's `.trim()` is a check that
 * rewrites the value in place, so one string schema does the work of a transform piped into a
 * second schema, at less cost per request. `abort` keeps a too-long text at one issue.
 */
const text = z.string().max(MAX_TEXT_CHARS, { abort: true }).trim().min(1, 'text is empty');

/** `asr/text` and `ai/request`: `{"ts_ms": 0, "text": "…"}`. */
export const textInputSchema = z.strictObject({ ts_ms: tsMs.optional(), text });

/** `ai/cancel`: empty payload, `{}` or `{"ts_ms": …}`. */
export const cancelSchema = z.strictObject({ ts_ms: tsMs.optional() });

/** Model ids as the APIs spell them: letters, digits, . _ - : / */
const modelId = z.string().min(1).max(100).regex(/^[\w.:/-]+$/, 'not a model id');

/** `skull/config/ia` (retained). */
export const iaConfigSchema = z.strictObject({
  model: modelId.optional(),
  lang: z.string().regex(/^[a-z]{2,3}(?:-[A-Z]{2})?$/, 'not a language tag').optional(),
  eos_ms: z.number().int().min(0).max(10_000).optional(),
  max_tokens: z.number().int().min(1).max(8192).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
});

export type IaConfig = z.infer<typeof iaConfigSchema>;

/** Same language: `fr` accepts `fr` and `fr-FR`/`fr-CA` (the region does not change the replies). */
function sameLanguage(tag: string, lang: string): boolean {
  return tag.split('-')[0] === lang.split('-')[0];
}

/**
 * `skull/config/ia` as this service accepts it: a model among those it offers
 * (`ai/capabilities.models`) and the language it answers in (`ai/capabilities.lang`). Anything else
 * is an invalid config, counted and reported on ai/health; the last good config stays.
 */
export function iaConfigFor(offer: { models: readonly string[]; lang: string }): z.ZodType<IaConfig> {
  return iaConfigSchema.superRefine((v, ctx) => {
    if (v.model !== undefined && !offer.models.includes(v.model)) {
      ctx.addIssue({ code: 'custom', path: ['model'], message: `${v.model} is not offered (ai/capabilities.models: ${offer.models.join(', ')})` });
    }
    if (v.lang !== undefined && !sameLanguage(v.lang, offer.lang)) {
      ctx.addIssue({ code: 'custom', path: ['lang'], message: `${v.lang} is not supported (ai/capabilities.lang: ${offer.lang})` });
    }
  });
}

/** `skull/config/prompt_system` (retained). */
export const promptSystemSchema = z.strictObject({ text: z.string().max(8000).transform((s) => s.trim()).pipe(z.string().min(1, 'text is empty')) });

export type RejectReason = 'too_large' | 'not_utf8' | 'not_json' | 'invalid';

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: RejectReason; detail: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes → validated value. An empty payload is `emptyAs` when given (a cleared retained topic,
 * a bare `ai/cancel`), otherwise invalid. Never throws.
 */
export function parsePayload<T>(payload: Uint8Array, schema: z.ZodType<T>, emptyAs?: unknown): Parsed<T> {
  if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'too_large', detail: `${payload.length} bytes > ${MAX_PAYLOAD_BYTES}` };
  let raw: string;
  try {
    raw = utf8.decode(payload);
  } catch {
    return { ok: false, reason: 'not_utf8', detail: 'payload is not UTF-8 text' };
  }
  let value: unknown;
  if (raw.trim() === '' && emptyAs !== undefined) value = emptyAs;
  else {
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, reason: 'not_json', detail: 'payload is not JSON' };
    }
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const detail = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { ok: false, reason: 'invalid', detail: detail.slice(0, 300) };
  }
  return { ok: true, value: result.data };
}

/** The retained `ai/capabilities` payload: what a retained skull/config/ia may choose among. */
export interface CapabilitiesPayload {
  models: string[];
  lang: string;
  max_tokens: number;
}

export function capabilitiesOf(settings: { models: string[]; lang: string; maxTokensCap: number }): CapabilitiesPayload {
  return { models: settings.models, lang: settings.lang, max_tokens: settings.maxTokensCap };
}
