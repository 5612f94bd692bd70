import { z } from 'zod';
import type { Claim, VerifyInput, VerifyOutput } from '../../machines/chat.js';
import type { LlmCallInput, LlmCallOutput } from '../../machines/llmCall.js';
import { CLAIM_CHECK_SYSTEM_PROMPT } from '../../prompts/docs/chatPrompt.js';
import type { GenerateResult } from '../../machines/llmPort.js';

/**
 * The `verify` actor: one structured call that says which sentences of an answer the passages they
 * cite support (docs/docs-assistant.md § Claims checked before they are shown). One attempt, the
 * relevance call's model and deadline, a few output tokens: a failed, late or malformed reply is
 * no verdict, and the chart shows the answer with confidence "low".
 */
const MAX_PASSAGE_CHARS = 1200;
const MAX_VERDICT_TOKENS = 80;

const claimVerdictSchema = z.object({ supported: z.array(z.number().int().min(1).max(200)).max(200) });

function claimCheckRequest(input: VerifyInput, model: string): LlmCallInput['request'] {
  const passages = input.passages
    .map((p, i) => `[${i + 1}] ${p.path} › ${p.section}\n${p.text.length > MAX_PASSAGE_CHARS ? `${p.text.slice(0, MAX_PASSAGE_CHARS)}…` : p.text}`)
    .join('\n\n');
  const sentences = input.claims.map((c, i) => `(${i + 1}) ${c.text}${c.marks.length ? ` — cites ${c.marks.map((m) => `[${m}]`).join('')}` : ' — cites none'}`).join('\n');
  return {
    model,
    system: CLAIM_CHECK_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: `Question: ${input.question}\n\nPassages:\n\n${passages}\n\nSentences of the answer:\n${sentences}` }],
    maxTokens: MAX_VERDICT_TOKENS,
    temperature: 0,
    json: true,
    purpose: 'chat_claims',
  };
}

/** Which claims a reply says are supported, or why it is not a verdict. */
function parseClaimVerdict(text: string, claims: readonly Claim[]): { ok: true; supported: boolean[] } | { ok: false; reason: string } {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return { ok: false, reason: 'malformed claim check: no JSON object' };
  let raw: unknown;
  try {
    raw = JSON.parse(m[0]);
  } catch {
    return { ok: false, reason: 'malformed claim check: invalid JSON' };
  }
  const parsed = claimVerdictSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: 'malformed claim check: expected {"supported": [numbers]}' };
  if (parsed.data.supported.some((n) => n > claims.length)) return { ok: false, reason: 'malformed claim check: numbers name no sentence' };
  const kept = new Set(parsed.data.supported);
  return { ok: true, supported: claims.map((_, i) => kept.has(i + 1)) };
}

export interface ClaimCheckDeps {
  model: string;
  timeoutMs: number;
  call: (input: LlmCallInput, signal: AbortSignal) => Promise<LlmCallOutput>;
  now?: () => number;
  /** Latency, outcome and usage of each call, for /metrics. */
  onCall?: (r: { ms: number; supported: number; unsupported: number; valid: boolean; result: GenerateResult | undefined }) => void;
}

/** The `verify` actor's body: never throws, every failure is a verdict-less output. */
export async function checkClaims(input: VerifyInput, deps: ClaimCheckDeps, signal: AbortSignal): Promise<VerifyOutput> {
  const now = deps.now ?? (() => performance.now());
  const t0 = now();
  const out = await deps.call(
    { request: claimCheckRequest(input, deps.model), maxRetries: 0, attemptTimeoutMs: deps.timeoutMs, backoffBaseMs: 0, retryAfterCapMs: 0 },
    signal,
  );
  const ms = now() - t0;
  if (!out.ok) {
    deps.onCall?.({ ms, supported: 0, unsupported: 0, valid: false, result: undefined });
    return { ok: false, reason: `${out.error.kind}: ${out.error.message}`, ms };
  }
  const v = parseClaimVerdict(out.result.text, input.claims);
  const supported = v.ok ? v.supported.filter(Boolean).length : 0;
  deps.onCall?.({ ms, supported, unsupported: v.ok ? v.supported.length - supported : 0, valid: v.ok, result: out.result });
  return { ...v, ms };
}
