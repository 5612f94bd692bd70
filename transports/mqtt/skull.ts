import { fromPromise } from 'xstate';
import type { MqttClient } from 'mqtt';
import type { Config } from '../../core/config/index.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import type { LlmProvider } from '../../actors/llm/types.js';
import { registerOfflineResponder } from '../../actors/llm/offline.js';
import { provideLlmCall } from '../../actors/llm/llmCallActor.js';
import { isBreakerOpen } from '../../machines/breaker.js';
import { effectiveModel, inFlight, latencyP50, skullMachine, type SkullActorRef, type SkullEvent, type SkullInput } from '../../machines/skull.js';
import { BUILTIN_PROMPT } from '../../actors/skull/prompt.js';
import { readPromptFile } from '../../actors/skull/promptFile.js';
import { o200k } from '../../actors/skull/tokens.js';
import { skullSettings } from '../../actors/skull/settings.js';
import type { Outgoing, SkullSettings } from '../../actors/skull/types.js';
import { skullOfflineResponder } from '../../prompts/skull/persona.js';
import { connectMqtt } from './client.js';
import type { OutboxMessage } from './outbox.js';
import { ackedPublisher, ReplyChannel } from './replyChannel.js';
import { cancelSchema, iaConfigFor, parsePayload, promptSystemSchema, textInputSchema, type RejectReason } from './skullSchemas.js';
import { inputTopics, skullTopics, type SkullTopics } from './skullTopics.js';

/**
 * The Skull's MQTT edge: parses and validates every input (skullSchemas), routes it as a typed
 * event to the device's actor, and publishes what the actor produces. No business rule here:
 * debounce, busy, queue, policy, retries and fallback are the chart's (machines/skull.ts).
 *
 * Outputs: ai/response then ai/usage (QoS 1, from the chart's `publishReply`), ai/capabilities
 * (retained, QoS 1, on every (re)connection), ai/health every SKULL_HEALTH_INTERVAL_MS (retained;
 * the connection's last will replaces it with `ok:false` if the service dies).
 */
export interface SkullServiceOptions {
  config: Config;
  logger: Logger;
  runtime: Runtime;
  provider: LlmProvider;
  mqttUrl: string;
  metrics?: Metrics;
  /** Clock for latency figures (SimulatedClock.now in tests). */
  now?: () => number;
  random?: () => number;
  /** Overrides of the settings derived from config (tests, benches). */
  settings?: Partial<SkullSettings>;
  /** 0 disables the periodic health (tests publish it by hand). */
  healthIntervalMs?: number;
  /** First reconnect delay, ms (default 1000). */
  reconnectBaseMs?: number;
  /** Give up the first connection after this long (default: keep trying, as a device should). */
  connectTimeoutMs?: number;
  /**
   * The skull chart with its actors already provided (model-based tests hand in one whose
   * `llmCall` and `publishReply` they control). Default: wired to `provider` and this connection.
   */
  machine?: typeof skullMachine;
  /** The actor's input as is (model-based tests); default: built from config. */
  input?: SkullInput;
}

export interface HealthPayload {
  ts_ms: number;
  ok: boolean;
  latency_p50: number | null;
  in_flight: number;
  queued: number;
  dropped: number;
  busy_ignored: number;
  duplicates: number;
  redirected: number;
  cancelled: number;
  apologies: number;
  fallbacks: number;
  rejected: number;
  rejected_by_reason: Partial<Record<RejectReason, number>>;
  invalid_config: number;
  last_config_error: string | null;
  breaker: 'closed' | 'open';
  model: string;
  fallback_model: string;
  provider: string;
  mqtt_protocol: 4 | 5;
  prompt_source: 'retained' | 'file' | 'builtin';
  /** Replies the broker did not take (no ack in time, refused), since the start. */
  publish_errors: number;
  /** Replies kept while the broker was away that expired (SKULL_REPLY_TTL_MS) or overflowed. */
  replies_expired: number;
  /** Replies kept now, waiting for the broker. */
  replies_kept: number;
}

export interface CapabilitiesPayload {
  models: string[];
  lang: string;
  max_tokens: number;
}

export interface SkullService {
  actor: SkullActorRef;
  systemId: string;
  topics: SkullTopics;
  protocolVersion: 4 | 5;
  client: MqttClient;
  health(): HealthPayload;
  publishHealth(): Promise<void>;
  /**
   * Without `deadlineAt`: stops now. With it (a signal): inputs are unsubscribed, the turn in
   * flight and the queued ones finish and publish while time allows (what is left is logged as
   * dropped), kept replies are sent if the broker is there, then it stops.
   */
  stop(opts?: { deadlineAt?: number }): Promise<void>;
}

export function capabilitiesOf(settings: SkullSettings): CapabilitiesPayload {
  return { models: settings.models, lang: settings.lang, max_tokens: settings.maxTokensCap };
}

export async function startSkullService(opts: SkullServiceOptions): Promise<SkullService> {
  const { config, logger, runtime, provider } = opts;
  const log = logger.child({ surface: 'skull' });
  const now = opts.now ?? Date.now;
  const settings: SkullSettings = { ...skullSettings(config), ...opts.settings };
  const topics = skullTopics(config.SKULL_TOPIC_PREFIX);
  const prompt = readPromptFile(config.SKULL_PROMPT_FILE, BUILTIN_PROMPT);
  if (!prompt.fromFile) log.warn({ path: config.SKULL_PROMPT_FILE }, 'prompt file missing or empty: using the built-in prompt');

  // A retained config may only pick among the models and the language ai/capabilities announces.
  const iaSchema = iaConfigFor(capabilitiesOf(settings));
  const rejected: Partial<Record<RejectReason, number>> = {};
  let invalidConfig = 0;
  let lastConfigError: string | null = null;
  let retainedPrompt = false;

  const offlineHealth = JSON.stringify({ ok: false, reason: 'offline' });
  const { client, protocolVersion } = await connectMqtt({
    url: opts.mqttUrl,
    // Unique per connection: two services on one broker must not take over each other's session.
    clientId: `palabre-${config.SKULL_DEVICE_ID}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    logger: log,
    will: { topic: topics.aiHealth, payload: offlineHealth, retain: true, qos: 1 },
    ...(opts.reconnectBaseMs !== undefined ? { reconnectBaseMs: opts.reconnectBaseMs } : {}),
    ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
  });

  // Registered once connected, so a failed start leaves nothing behind.
  const unregister = registerOfflineResponder('skull', skullOfflineResponder);

  const replies = new ReplyChannel({
    publish: ackedPublisher(client),
    connected: () => client.connected,
    max: config.SKULL_OUTBOX_MAX,
    ttlMs: config.SKULL_REPLY_TTL_MS,
    now,
    log,
  });
  const outbox = replies.outbox;
  const flushOutbox = () => replies.flush();
  const publishReply = fromPromise<void, Outgoing>(async ({ input }) => {
    const messages: OutboxMessage[] = [{ topic: topics.aiResponse, payload: JSON.stringify(input.response) }];
    if (input.usage) messages.push({ topic: topics.aiUsage, payload: JSON.stringify(input.usage) });
    await replies.send(messages);
  });
  // Retries are logged with their cause (the spec's logs: "causes retry, bascule fallback").
  const llmCall = provideLlmCall(provider, opts.metrics ? { metrics: opts.metrics } : {}).provide({
    actions: {
      recordRetry: ({ context }, params: { kind: string }) => {
        opts.metrics?.llmRetries.inc({ purpose: 'skull', kind: params.kind });
        log.warn({ kind: params.kind, model: context.model, attempt: context.attempts, backoffMs: context.backoffMs }, 'llm retry');
      },
    },
  });
  const machine =
    opts.machine ??
    skullMachine.provide({
      actors: { llmCall, publishReply },
      actions: {
        reportFallback: (_, params: { model: string }) => log.warn({ model: params.model }, 'primary model failed: falling back'),
        reportApology: () => log.error('no usable reply from any model: apology published'),
      },
    });
  const systemId = `skull:${config.SKULL_DEVICE_ID}`;
  const input: SkullInput = opts.input ?? {
    deviceId: config.SKULL_DEVICE_ID,
    settings,
    defaultPrompt: prompt.text,
    now,
    tokens: o200k,
    ...(opts.random ? { random: opts.random } : {}),
  };
  const actor = runtime.start('skull', systemId, machine, { now, ...input }) as SkullActorRef;

  // Breaker transitions are logged: the fallback model serves every call while it is open.
  let breakerWasOpen = false;
  const breakerSub = actor.getSnapshot().context.breaker.subscribe((snap) => {
    const open = isBreakerOpen(snap);
    if (open !== breakerWasOpen) {
      breakerWasOpen = open;
      if (open) log.warn({ fallbackModel: settings.fallbackModel, cooldownMs: settings.breaker.cooldownMs }, 'breaker open: fallback model for every call');
      else log.info({ model: settings.model }, 'breaker closed: primary model again');
    }
  });

  const reject = (topic: string, reason: RejectReason, detail: string) => {
    rejected[reason] = (rejected[reason] ?? 0) + 1;
    opts.metrics?.inputRejected.inc({ surface: 'skull', reason });
    log.warn({ topic, reason, detail }, 'input rejected');
  };

  const send = (event: SkullEvent) => actor.send(event);

  client.on('message', (topic, payload) => {
    switch (topic) {
      case topics.asrText:
      case topics.aiRequest: {
        const r = parsePayload(payload, textInputSchema);
        if (!r.ok) return reject(topic, r.reason, r.detail);
        return send(topic === topics.asrText ? { type: 'asr.text', text: r.value.text } : { type: 'ai.request', text: r.value.text });
      }
      case topics.aiCancel: {
        const r = parsePayload(payload, cancelSchema, {});
        if (!r.ok) return reject(topic, r.reason, r.detail);
        return send({ type: 'ai.cancel' });
      }
      case topics.configIa: {
        if (payload.length === 0) {
          log.info('retained skull/config/ia cleared: environment defaults apply');
          return send({ type: 'config.ia', config: null });
        }
        const r = parsePayload(payload, iaSchema);
        if (!r.ok) {
          invalidConfig++;
          lastConfigError = `${topic}: ${r.reason} (${r.detail})`;
          return reject(topic, r.reason, `${r.detail}; keeping the last good config`);
        }
        log.info({ config: r.value }, 'skull/config/ia applied for the next turn');
        return send({ type: 'config.ia', config: r.value });
      }
      case topics.configPrompt: {
        if (payload.length === 0) {
          retainedPrompt = false;
          log.info('retained prompt_system cleared: using the prompt file');
          return send({ type: 'config.prompt', text: null });
        }
        const r = parsePayload(payload, promptSystemSchema);
        if (!r.ok) {
          invalidConfig++;
          lastConfigError = `${topic}: ${r.reason} (${r.detail})`;
          return reject(topic, r.reason, `${r.detail}; keeping the last good prompt`);
        }
        retainedPrompt = true;
        log.info({ chars: r.value.text.length }, 'prompt_system applied for the next turn');
        return send({ type: 'config.prompt', text: r.value.text });
      }
      default:
        return undefined;
    }
  });

  const publishCapabilities = () =>
    client.publishAsync(topics.aiCapabilities, JSON.stringify(capabilitiesOf(settings)), { qos: 1, retain: true }).catch((err: Error) => {
      log.warn({ err: err.message }, 'ai/capabilities not published');
    });
  // Every reconnection republishes capabilities (a broker restart without persistence loses it).
  client.on('connect', () => {
    log.info({ kept: outbox.size }, 'mqtt reconnected');
    void publishCapabilities();
    void flushOutbox();
  });
  await client.subscribeAsync(inputTopics(topics), { qos: 1 });
  await publishCapabilities();

  const health = (): HealthPayload => {
    const snap = actor.getSnapshot();
    const ctx = snap.context;
    return {
      ts_ms: now(),
      ok: client.connected && snap.status === 'active',
      latency_p50: latencyP50(ctx.latencies),
      in_flight: inFlight(snap),
      queued: ctx.queue.length,
      dropped: ctx.stats.dropped,
      busy_ignored: ctx.stats.busyIgnored,
      duplicates: ctx.stats.duplicates,
      redirected: ctx.stats.redirected,
      cancelled: ctx.stats.cancelled,
      apologies: ctx.stats.apologies,
      fallbacks: ctx.stats.fallbacks,
      rejected: Object.values(rejected).reduce((a, b) => a + b, 0),
      rejected_by_reason: { ...rejected },
      invalid_config: invalidConfig,
      last_config_error: lastConfigError,
      breaker: isBreakerOpen(ctx.breaker.getSnapshot()) ? 'open' : 'closed',
      model: effectiveModel(ctx),
      fallback_model: settings.fallbackModel,
      provider: provider.name,
      mqtt_protocol: protocolVersion,
      prompt_source: retainedPrompt ? 'retained' : prompt.fromFile ? 'file' : 'builtin',
      // The chart counts a publish that timed out; the transport one the broker refused.
      publish_errors: ctx.stats.publishErrors + replies.publishErrors,
      replies_expired: outbox.expired,
      replies_kept: outbox.size,
    };
  };
  const publishHealth = async () => {
    if (!client.connected) return;
    await client.publishAsync(topics.aiHealth, JSON.stringify(health()), { qos: 0, retain: true });
  };
  const interval = opts.healthIntervalMs ?? config.SKULL_HEALTH_INTERVAL_MS;
  const timer = interval > 0 ? setInterval(() => {
    outbox.sweep(); // expiries are logged when they happen, not only when the broker returns
    void publishHealth().catch(() => undefined);
  }, interval) : undefined;
  timer?.unref();
  void publishHealth().catch(() => undefined);
  log.info({ systemId, topics: topics.asrText, model: settings.model, provider: provider.name, protocolVersion }, 'skull ready');

  /**
   * Graceful stop: no new input (unsubscribed), the turn in flight and the queue run to their
   * publish while time allows, then the kept replies go out if the broker is there.
   */
  const drain = async (deadlineAt: number): Promise<void> => {
    const startedAt = Date.now();
    await client.unsubscribeAsync(inputTopics(topics)).catch((err: Error) => log.warn({ err: err.message }, 'inputs not unsubscribed (broker away)'));
    const busy = () => inFlight(actor.getSnapshot());
    const atStart = busy();
    if (atStart > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, deadlineAt - Date.now()));
        const sub = actor.subscribe(() => {
          if (busy() === 0) done();
        });
        function done(): void {
          clearTimeout(timer);
          sub.unsubscribe();
          resolve();
        }
      });
    }
    if (outbox.size > 0 && client.connected) {
      await Promise.race([flushOutbox(), new Promise((resolve) => setTimeout(resolve, Math.max(0, deadlineAt - Date.now())).unref())]);
    }
    const snap = actor.getSnapshot();
    const cut = { inFlight: snap.matches({ turn: 'idle' }) ? 0 : 1, queued: snap.context.queue.length, kept: outbox.size };
    for (const job of snap.context.queue) log.warn({ text: job.text.slice(0, 80), waitedMs: Date.now() - job.at }, 'skull stop: queued turn dropped (shutdown deadline)');
    if (cut.inFlight) log.warn('skull stop: the turn in flight was cut at the shutdown deadline');
    if (cut.kept > 0) outbox.drop();
    const drained = Math.max(0, atStart - cut.inFlight - cut.queued);
    log[cut.inFlight + cut.queued + cut.kept > 0 ? 'warn' : 'info']({ drained, cut, ms: Date.now() - startedAt }, 'skull drained');
  };

  let stopping: Promise<void> | undefined;
  return {
    actor,
    systemId,
    topics,
    protocolVersion,
    client,
    health,
    publishHealth,
    stop(stopOpts) {
      stopping ??= (async () => {
        if (stopOpts?.deadlineAt !== undefined) await drain(stopOpts.deadlineAt);
        if (timer) clearInterval(timer);
        breakerSub.unsubscribe();
        runtime.stop(systemId);
        unregister();
        // A clean stop says so on ai/health (the will only fires on an unclean loss).
        if (client.connected) {
          await client.publishAsync(topics.aiHealth, JSON.stringify({ ok: false, reason: 'stopped' }), { qos: 1, retain: true }).catch(() => undefined);
        }
        await client.endAsync();
      })();
      return stopping;
    },
  };
}
