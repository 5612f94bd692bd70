import type { EventObject } from 'xstate';
import { LlmError, type GenerateResult } from '../../machines/llmPort.js';
import type { LlmCallRequest } from '../../machines/llmPolicy.js';
import { APOLOGY_TEXT, INTERRUPTED_TEXT, type Outgoing, type SkullSettings } from '../../machines/skullTypes.js';
import type { HealthPayload } from '../../transports/mqtt/skullHealth.js';
import type { OracleContext } from '../harness/index.js';
import { expectedBreaker, type BreakerCall } from '../model/breakerReference.js';

/**
 * What a Skull device must observe, per docs/skull.md, computed from the events of a path alone
 * (a small reference of the rules, independent of the chart): which provider calls start, with
 * which model and attempt timeout, and which replies are published, in order; counters as
 * ai/health shows them. The model call's policy (retries of transient errors after a backoff, the
 * breaker, one fallback round, the empty reply asked again once) is modelled here from the
 * provider's answers (`generate` done or failed, the attempt timeout).
 *
 * The texts of the samples are chosen so that the reference needs no classifier: `argent` is the
 * sensitive one, `Bonjour !` / `Secours.` survive post-processing unchanged, "```\n```" is empty
 * after it.
 */
export const SENSITIVE_SAMPLE = 'argent';
const REDIRECT = 'Sujet sensible, changeons de thème amusant !';
/** The model test's default prompt (its input's `defaultPrompt`). */
export const DEFAULT_PROMPT = 'Tu es Skull.';

export interface SkullWorld {
  /** What ai/health would say now. */
  health(): Pick<HealthPayload, 'latency_p50' | 'dropped' | 'busy_ignored' | 'duplicates' | 'redirected' | 'cancelled' | 'apologies' | 'fallbacks' | 'queued' | 'in_flight' | 'publish_errors' | 'model' | 'prompt_source'>;
  /** The service's log lines (JSON) since this path started. */
  logs(): Array<Record<string, unknown>>;
  /** Replies handed to the edge's publish, in order. */
  published(): Outgoing[];
  /** The provider calls the wiring's `generate` effect made, in order, with their AbortSignal. */
  calls(): ReadonlyArray<{ request: LlmCallRequest; signal: AbortSignal; settled: boolean }>;
  /** Delays (ms) of the attempt timeouts pending on the device's clock: when a call is given up. */
  attemptTimeouts(): number[];
}

/** The log lines docs/skull.md names for a fallback and an apology ("causes retry, bascule fallback"). */
const FALLBACK_LOG = 'primary model failed: falling back';
const APOLOGY_LOG = 'no usable reply from any model: apology published';
const RETRY_LOG = 'llm retry';

/** Step events of the provider call: it answers the attempt in flight; `late` = an earlier, timed-out or cancelled one. */
export type GenerateStep = EventObject & { type: 'generate.done' | 'generate.failed'; late?: boolean };

/** Step events of the publish: the broker acks (or fails) the reply in flight; `late` = the one of an earlier, timed-out turn. */
export type PublishStep = EventObject & { type: 'publish.done' | 'publish.failed'; late?: boolean };

interface Expected {
  calls: Array<{ model: string; prompt: string }>;
  /** Model replies published so far (ai/health's latency_p50 is null until the first). */
  modelReplies: number;
  replies: Array<{ text: string; usage?: { model: string; inputTokens: number; outputTokens: number; cached: boolean } }>;
  accepted: number;
  /** Turns ended: published, or the publish failed or timed out (the /inspect page's `stats.responses`). */
  turnsEnded: number;
  /** Publishes that failed or got no ack in time (ai/health publish_errors). */
  publishErrors: number;
  retries: number;
  /** Retained config in force (ai/health model and prompt_source). */
  iaModel: string | null;
  prompt: string | null;
  counters: { dropped: number; busy_ignored: number; duplicates: number; redirected: number; cancelled: number; apologies: number; fallbacks: number };
  phase: 'idle' | 'attempting' | 'backoff' | 'publishing';
  /** Model of the attempt running (or last run). */
  model: string;
  queue: string[];
}

type Payload = EventObject & { text?: string; result?: GenerateResult; error?: unknown; late?: boolean };

const usableText = (text: string): string => (/[\p{L}\p{N}]/u.test(text.replace(/```[^`]*```/g, '')) ? text : '');

/** Transient failures are retried: timeouts, 429, 5xx, network, empty (docs/skull.md § What happens to an input, step 7). */
const transient = (error: unknown): boolean => error instanceof LlmError && error.transient;

function expectedSkull(events: readonly EventObject[], settings: SkullSettings): Expected {
  const x: Expected = {
    calls: [],
    modelReplies: 0,
    replies: [],
    accepted: 0,
    turnsEnded: 0,
    publishErrors: 0,
    retries: 0,
    iaModel: null,
    prompt: null,
    counters: { dropped: 0, busy_ignored: 0, duplicates: 0, redirected: 0, cancelled: 0, apologies: 0, fallbacks: 0 },
    phase: 'idle',
    model: settings.model,
    queue: [],
  };
  let lastAsr: string | null = null;
  let window = false;
  let emptyRetried = false;
  // The round in progress: the primary model (or the retained one), or the fallback round.
  let round = { fallback: false, model: settings.model, retries: 0, prompt: DEFAULT_PROMPT };
  // Everything the device told its breaker (the windows and the cool-down outlast any path).
  const breakerCalls: BreakerCall[] = [];
  const breakerOpen = () => expectedBreaker(settings.breaker, breakerCalls, 0).open;
  // Retained config applies to the next turn (docs/skull.md): model and system prompt.
  let iaModel: string | null = null;
  let prompt: string | null = null;
  const primary = () => iaModel ?? settings.model;
  const attempt = () => {
    // While the breaker is open a primary round uses the fallback model, attempt by attempt.
    x.model = !round.fallback && breakerOpen() ? settings.fallbackModel : round.model;
    x.calls.push({ model: x.model, prompt: round.prompt });
    x.phase = 'attempting';
  };
  const startRound = (fallback: boolean) => {
    round = { fallback, model: fallback ? settings.fallbackModel : primary(), retries: 0, prompt: prompt ?? DEFAULT_PROMPT };
    attempt();
  };
  const reply = (text: string, out?: GenerateResult) => {
    // A model's reply goes with its usage (ai/usage): tokens, the model that answered, cache hit.
    if (out) x.modelReplies++;
    // The configured id names the model; the offline provider names itself instead.
    const model = out?.provider === 'offline' ? out.model : x.model;
    const u = out?.usage;
    x.replies.push(u ? { text, usage: { model, inputTokens: u.inputTokens, outputTokens: u.outputTokens, cached: u.cachedTokens > 0 } } : { text });
    x.phase = 'publishing';
  };
  const apologise = () => {
    x.counters.apologies++;
    reply(APOLOGY_TEXT);
  };
  const failedAttempt = (isTransient: boolean) => {
    breakerCalls.push({ at: 0, type: 'breaker.failure' });
    if (isTransient && round.retries < settings.maxRetries) {
      round.retries++;
      x.retries++;
      x.phase = 'backoff';
    } else if (!round.fallback && x.model !== settings.fallbackModel) {
      x.counters.fallbacks++;
      startRound(true);
    } else apologise();
  };
  const route = (text: string) => {
    emptyRetried = false;
    if (text === SENSITIVE_SAMPLE) {
      x.counters.redirected++;
      reply(REDIRECT);
    } else startRound(false);
  };
  const accept = (e: Payload) => {
    const inFlight = x.queue.length + (x.phase === 'idle' ? 0 : 1);
    if (x.phase === 'idle') {
      x.accepted++;
      route(e.text!);
    } else if (inFlight < settings.maxInFlight) {
      x.accepted++;
      x.queue.push(e.text!);
    } else x.counters.dropped++;
  };
  const endTurn = () => {
    x.turnsEnded++;
    const next = x.queue.shift();
    if (next !== undefined) route(next);
    else x.phase = 'idle';
  };
  const calling = () => x.phase === 'attempting' || x.phase === 'backoff';
  for (const event of events) {
    const e = event as Payload;
    const t = event.type;
    if (t === 'asr.text') {
      const norm = e.text!.trim().toLowerCase();
      if (x.phase !== 'idle') x.counters.busy_ignored++;
      else if (window && norm === lastAsr) x.counters.duplicates++;
      else {
        lastAsr = norm;
        window = true;
        accept(e);
      }
    } else if (t === 'ai.request') accept(e);
    else if (t === 'ai.cancel') {
      if (calling()) {
        x.counters.cancelled++;
        reply(INTERRUPTED_TEXT);
      }
    } else if ((t === 'generate.done' || t === 'generate.failed') && e.late === true) {
      // A late answer about an attempt given up (timed out, cancelled) changes nothing.
      continue;
    } else if (t === 'generate.done') {
      const out = e.result!;
      // A success forgets the failures counted (an open breaker ignores it).
      breakerCalls.push({ at: 0, type: 'breaker.success' });
      const text = usableText(out.text);
      if (text) reply(text, out);
      else if (!round.fallback && !emptyRetried) {
        // An empty reply is asked again once, on the primary model.
        emptyRetried = true;
        startRound(false);
      } else apologise();
    } else if (t === 'generate.failed') failedAttempt(transient(e.error));
    else if (t.startsWith('xstate.after.attemptTimeout')) {
      if (x.phase === 'attempting') failedAttempt(true);
    } else if (t.startsWith('xstate.after.backoff')) {
      if (x.phase === 'backoff') attempt();
    } else if (t === 'publish.done' || t === 'publish.failed' || t.startsWith('xstate.after.publishTimeout')) {
      // A late answer about an earlier, timed-out reply changes nothing.
      if (x.phase !== 'publishing' || e.late === true) continue;
      if (t !== 'publish.done') x.publishErrors++;
      endTurn();
    } else if (t.startsWith('xstate.after.debounce')) window = false;
    else if (t === 'config.ia') iaModel = (e as EventObject & { config: { model?: string } | null }).config?.model ?? null;
    else if (t === 'config.prompt') prompt = e.text ?? null;
  }
  x.iaModel = iaModel;
  x.prompt = prompt;
  return x;
}

/** The oracle of the Skull model test: observed calls, replies and counters against the reference. */
export function expectSkull({ events, world, end, check, input, snapshot }: OracleContext): void {
  const settings = (input as { settings: SkullSettings }).settings;
  const x = expectedSkull(events, settings);
  const w = world as SkullWorld;
  const calls = w.calls();
  const seen = calls.map(({ request }) => {
    // The system prompt in force: the retained one, else the default (the rules are appended).
    const system = (request.system ?? '').replace(/^\[SYSTEM\] /, '');
    const prompt = system.startsWith('Tu es poli.') ? 'Tu es poli.' : system.startsWith(DEFAULT_PROMPT) ? DEFAULT_PROMPT : system;
    return { model: request.model, prompt };
  });
  check(JSON.stringify(seen) === JSON.stringify(x.calls), `provider calls ${JSON.stringify(x.calls)}, got ${JSON.stringify(seen)}`);
  const running = calls.filter((c) => !c.settled && !c.signal.aborted).length;
  check(running === (x.phase === 'attempting' ? 1 : 0), `one provider call runs while attempting, none otherwise (cancelled or timed-out ones aborted): ${running} running in ${x.phase}`);
  // The small model gets the short timeout (docs/skull.md § Configuration).
  const timeouts = w.attemptTimeouts();
  const timeout = x.model === settings.fallbackModel ? settings.fallbackTimeoutMs : settings.timeoutMs;
  check(
    JSON.stringify(timeouts) === JSON.stringify(x.phase === 'attempting' ? [timeout] : []),
    `attempt on ${x.model}: timeout ${x.phase === 'attempting' ? timeout : 'none'} pending, got ${JSON.stringify(timeouts)}`,
  );
  const published = w.published().map((o) => {
    // French punctuation puts a narrow no-break space before `!`: compare words, not spaces.
    const text = o.response.text.replace(/[\s\u202f\u00a0]+/g, ' ');
    const u = o.usage;
    return u ? { text, usage: { model: u.model, inputTokens: u.input_tokens, outputTokens: u.output_tokens, cached: u.cached } } : { text };
  });
  check(JSON.stringify(published) === JSON.stringify(x.replies), `replies ${JSON.stringify(x.replies)}, got ${JSON.stringify(published)}`);
  const h = w.health();
  check((h.latency_p50 === null) === (x.modelReplies === 0), `ai/health latency_p50 is null until a model reply, got ${h.latency_p50}`);
  for (const [k, v] of Object.entries(x.counters)) check(h[k as keyof typeof x.counters] === v, `ai/health ${k} = ${v}, got ${h[k as keyof typeof x.counters]}`);
  check(h.queued === x.queue.length && h.in_flight === x.queue.length + (x.phase === 'idle' ? 0 : 1), `ai/health queued ${x.queue.length}`);
  check(h.publish_errors === x.publishErrors, `ai/health publish_errors = ${x.publishErrors}, got ${h.publish_errors}`);
  check(h.model === (x.iaModel ?? settings.model), `ai/health model = ${x.iaModel ?? settings.model}, got ${h.model}`);
  check((h.prompt_source === 'retained') === (x.prompt !== null), `ai/health prompt_source is retained iff a prompt is retained, got ${h.prompt_source}`);
  const logged = (msg: string) => w.logs().filter((l) => l.msg === msg);
  const fallbackLines = logged(FALLBACK_LOG);
  check(fallbackLines.length === x.counters.fallbacks && fallbackLines.every((l) => l.model === settings.fallbackModel), `${x.counters.fallbacks} "${FALLBACK_LOG}" line(s) naming ${settings.fallbackModel}, got ${JSON.stringify(fallbackLines)}`);
  check(logged(APOLOGY_LOG).length === x.counters.apologies, `${x.counters.apologies} "${APOLOGY_LOG}" line(s), got ${logged(APOLOGY_LOG).length}`);
  check(logged(RETRY_LOG).length === x.retries, `${x.retries} "${RETRY_LOG}" line(s) (one per retry), got ${logged(RETRY_LOG).length}`);
  // What /inspect shows of the device: turns ended (a failed publish ends one too), no job once idle.
  const c = snapshot.context as { stats: { responses: number }; current: unknown };
  check(c.stats.responses === x.turnsEnded, `/inspect: ${x.turnsEnded} turn(s) ended, shows ${c.stats.responses}`);
  if (x.phase === 'idle') check(c.current === null, '/inspect: no current job while idle');
  if (end) {
    // Every accepted request yields exactly one reply (those still in flight get theirs later).
    const pending = x.queue.length + (x.phase === 'attempting' || x.phase === 'backoff' ? 1 : 0);
    check(published.length === x.accepted - pending, `${x.accepted} accepted, ${pending} pending: ${x.accepted - pending} replies expected, got ${published.length}`);
  }
}
