import { z } from 'zod';
import type { JudgeInput, JudgeOutput } from '../../machines/chat.js';
import type { LlmCallInput, LlmCallOutput } from '../../machines/llmCall.js';
import { RELEVANCE_SYSTEM_PROMPT } from '../../prompts/docs/chatPrompt.js';
import type { GenerateResult } from '../../machines/llmPort.js';

/**
 * The "ask" band's relevance call: the question and the numbered passages go to the model, which
 * answers `{"answering": [n…]}` — the passages that contain the answer (Onyx and kotaemon grade
 * relevance the same way). One attempt, a short deadline, a few output tokens: a late, failed or
 * malformed verdict is no verdict, and the chart answers with confidence "low".
 */
const MAX_PASSAGE_CHARS = 700;
const MAX_VERDICT_TOKENS = 40;

const verdictSchema = z.object({ answering: z.array(z.number().int().min(1).max(50)).max(50) });

function relevanceRequest(input: JudgeInput, model: string): LlmCallInput['request'] {
  const listed = input.passages
    .map((p, i) => `[${i + 1}] ${p.path} › ${p.section}\n${p.text.length > MAX_PASSAGE_CHARS ? `${p.text.slice(0, MAX_PASSAGE_CHARS)}…` : p.text}`)
    .join('\n\n');
  return {
    model,
    system: RELEVANCE_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: `Question: ${input.question}\n\nPassages:\n\n${listed}` }],
    maxTokens: MAX_VERDICT_TOKENS,
    temperature: 0,
    json: true,
    purpose: 'chat_relevance',
  };
}

/** The passage ids a reply keeps, or why it is not a verdict. Numbers past the list are ignored. */
function parseVerdict(text: string, input: JudgeInput): { ok: true; keep: string[] } | { ok: false; reason: string } {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return { ok: false, reason: 'malformed verdict: no JSON object' };
  let raw: unknown;
  try {
    raw = JSON.parse(m[0]);
  } catch {
    return { ok: false, reason: 'malformed verdict: invalid JSON' };
  }
  const parsed = verdictSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: 'malformed verdict: expected {"answering": [numbers]}' };
  const keep = [...new Set(parsed.data.answering)].map((n) => input.passages[n - 1]?.id).filter((id): id is string => id !== undefined);
  if (keep.length === 0 && parsed.data.answering.length > 0) return { ok: false, reason: 'malformed verdict: numbers name no passage' };
  return { ok: true, keep };
}

export interface JudgeDeps {
  model: string;
  timeoutMs: number;
  /** Runs one llmCall (runLlmCall bound to the provider). */
  call: (input: LlmCallInput, signal: AbortSignal) => Promise<LlmCallOutput>;
  now?: () => number;
  /** Usage and latency of each call, for /metrics. */
  onCall?: (r: { ms: number; verdict: 'some' | 'none' | 'invalid'; result: GenerateResult | undefined }) => void;
}

/** The `judge` actor's body: never throws, every failure is a verdict-less output. */
export async function judgeRelevance(input: JudgeInput, deps: JudgeDeps, signal: AbortSignal): Promise<JudgeOutput> {
  const now = deps.now ?? (() => performance.now());
  const t0 = now();
  const out = await deps.call(
    { request: relevanceRequest(input, deps.model), maxRetries: 0, attemptTimeoutMs: deps.timeoutMs, backoffBaseMs: 0, retryAfterCapMs: 0 },
    signal,
  );
  const ms = now() - t0;
  if (!out.ok) {
    deps.onCall?.({ ms, verdict: 'invalid', result: undefined });
    return { ok: false, reason: `${out.error.kind}: ${out.error.message}`, ms };
  }
  const v = parseVerdict(out.result.text, input);
  deps.onCall?.({ ms, verdict: !v.ok ? 'invalid' : v.keep.length > 0 ? 'some' : 'none', result: out.result });
  return v.ok ? { ...v, ms } : { ...v, ms };
}
