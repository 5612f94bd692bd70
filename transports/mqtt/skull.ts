import { fromPromise } from 'xstate';
import type { MqttClient } from 'mqtt';
import type { Config } from '../../core/config/index.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import { isBreakerOpen } from '../../machines/breaker.js';
import { effectiveModel, inFlight, latencyP50, type SkullActorRef, type SkullEvent } from '../../machines/skull.js';
import type { SkullWiring } from '../../actors/skull/skullWiring.js';
import type { Outgoing, SkullSettings } from '../../actors/skull/types.js';
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
  /** The chart's actors, settings and input, wired by the composition root (actors/skull/skullWiring.ts). */
  skull: SkullWiring;
  mqttUrl: string;
  metrics?: Metrics;
  /** Clock for latency figures (SimulatedClock.now in tests); the same as the wiring's. */
  now?: () => number;
  /** 0 disables the periodic health (tests publish it by hand). */
  healthIntervalMs?: number;
  /** First reconnect delay, ms (default 1000). */
  reconnectBaseMs?: number;
  /** Give up the first connection after this long (default: keep trying, as a device should). */
  connectTimeoutMs?: number;
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
  const { config, logger, runtime, skull } = opts;
  const log = logger.child({ surface: 'skull' });
  const now = opts.now ?? Date.now;
  const settings = skull.settings;
  const topics = skullTopics(config.SKULL_TOPIC_PREFIX);
  if (!skull.promptFromFile) log.warn({ path: config.SKULL_PROMPT_FILE }, 'prompt file missing or empty: using the built-in prompt');

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
  const unregister = skull.activate();

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
  const machine = skull.machine(publishReply, log);
  const systemId = `skull:${config.SKULL_DEVICE_ID}`;
  const input = skull.input(config.SKULL_DEVICE_ID);
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
      provider: skull.providerName,
      mqtt_protocol: protocolVersion,
      prompt_source: retainedPrompt ? 'retained' : skull.promptFromFile ? 'file' : 'builtin',
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
  log.info({ systemId, topics: topics.asrText, model: settings.model, provider: skull.providerName, protocolVersion }, 'skull ready');

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
