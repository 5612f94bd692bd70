import type { MqttClient } from 'mqtt';
import type { Config } from '../../core/config/index.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import { inFlight, type SkullActorRef } from '../../machines/skull.js';
import type { PublishReply, SkullWiring } from '../../actors/skull/skullWiring.js';
import type { Outgoing, SkullSettings } from '../../actors/skull/types.js';
import { connectMqtt } from './client.js';
import { releaseHeldWrites } from './coalesceWrites.js';
import type { OutboxMessage } from './outbox.js';
import { ackedPublisher, ReplyChannel } from './replyChannel.js';
import { iaConfigFor } from './skullSchemas.js';
import { healthOf, logBreakerChanges, type HealthPayload } from './skullHealth.js';
import { InputLedger, routeSkullInputs } from './skullInputs.js';
import { inputTopics, skullTopics, type SkullTopics } from './skullTopics.js';

export type { HealthPayload } from './skullHealth.js';

/**
 * The Skull's MQTT edge: parses and validates every input (skullInputs.ts, with skullSchemas.ts),
 * routes it as a typed event to the device's actor, and publishes what the actor produces. No
 * business rule here: debounce, busy, queue, policy, retries and fallback are the chart's
 * (machines/skull.ts). The health payload is read through the chart's selectors (skullHealth.ts).
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

  const { client, protocolVersion } = await connectMqtt({
    url: opts.mqttUrl,
    // Unique per connection: two services on one broker must not take over each other's session.
    clientId: `palabre-${config.SKULL_DEVICE_ID}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    logger: log,
    will: { topic: topics.aiHealth, payload: JSON.stringify({ ok: false, reason: 'offline' }), retain: true, qos: 1 },
    ...(opts.reconnectBaseMs !== undefined ? { reconnectBaseMs: opts.reconnectBaseMs } : {}),
    ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
  });

  // Registered once connected, so a failed start leaves nothing behind.
  const unregister = skull.activate();
  const replies = new ReplyChannel({ publish: ackedPublisher(client), connected: () => client.connected, max: config.SKULL_OUTBOX_MAX, ttlMs: config.SKULL_REPLY_TTL_MS, now, log });
  const systemId = `skull:${config.SKULL_DEVICE_ID}`;
  const machine = skull.machine(replyPublisher(replies, topics, client), log);
  const actor = runtime.start('skull', systemId, machine, { now, ...skull.input(config.SKULL_DEVICE_ID) }) as SkullActorRef;
  const breakerSub = logBreakerChanges(actor, settings, log);

  const inputs = new InputLedger();
  // A retained config may only pick among the models and the language ai/capabilities announces.
  routeSkullInputs(client, { topics, iaSchema: iaConfigFor(capabilitiesOf(settings)), send: (e) => actor.send(e), ledger: inputs, log, metrics: opts.metrics });
  const publishCapabilities = () =>
    client.publishAsync(topics.aiCapabilities, JSON.stringify(capabilitiesOf(settings)), { qos: 1, retain: true }).catch((err: Error) => {
      log.warn({ err: err.message }, 'ai/capabilities not published');
    });
  // Every reconnection republishes capabilities (a broker restart without persistence loses it).
  client.on('connect', () => {
    log.info({ kept: replies.outbox.size }, 'mqtt reconnected');
    void publishCapabilities();
    void replies.flush();
  });
  await client.subscribeAsync(inputTopics(topics), { qos: 1 });
  await publishCapabilities();

  const health = (): HealthPayload =>
    healthOf({ actor, client, protocolVersion, replies, inputs, settings, providerName: skull.providerName, promptFromFile: skull.promptFromFile, now });
  const { publishHealth, timer } = publishHealthEvery(opts.healthIntervalMs ?? config.SKULL_HEALTH_INTERVAL_MS, { client, topics, replies, health });
  log.info({ systemId, topics: topics.asrText, model: settings.model, provider: skull.providerName, protocolVersion }, 'skull ready');

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
        if (stopOpts?.deadlineAt !== undefined) await drainSkull({ client, topics, actor, replies, log }, stopOpts.deadlineAt);
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

/** The one actor the edge adds to the wiring: ai/response then ai/usage, kept while the broker is away. */
function replyPublisher(replies: ReplyChannel, topics: SkullTopics, client: MqttClient): PublishReply {
  return async (input: Outgoing) => {
    const messages: OutboxMessage[] = [{ topic: topics.aiResponse, payload: JSON.stringify(input.response) }];
    if (input.usage) messages.push({ topic: topics.aiUsage, payload: JSON.stringify(input.usage) });
    const sent = replies.send(messages);
    // ai/response is handed to mqtt.js by now (send publishes before its first await): the
    // request's PUBACK and the reply, held for this turn, leave together without waiting for the
    // rest of the turn (coalesceWrites.ts).
    releaseHeldWrites(client);
    await sent;
  };
}

/** ai/health now and every `interval` ms (0: by hand only), retained; kept replies swept as it goes. */
function publishHealthEvery(interval: number, s: { client: MqttClient; topics: SkullTopics; replies: ReplyChannel; health: () => HealthPayload }) {
  const publishHealth = async () => {
    if (!s.client.connected) return;
    await s.client.publishAsync(s.topics.aiHealth, JSON.stringify(s.health()), { qos: 0, retain: true });
  };
  const timer = interval > 0 ? setInterval(() => {
    s.replies.outbox.sweep(); // expiries are logged when they happen, not only when the broker returns
    void publishHealth().catch(() => undefined);
  }, interval) : undefined;
  timer?.unref();
  void publishHealth().catch(() => undefined);
  return { publishHealth, timer };
}

/** Resolves once the device has no turn in flight, or at `deadlineAt`. */
function idleOrDeadline(actor: SkullActorRef, deadlineAt: number): Promise<void> {
  const busy = () => inFlight(actor.getSnapshot());
  return new Promise<void>((resolve) => {
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

/**
 * Graceful stop: no new input (unsubscribed), the turn in flight and the queue run to their
 * publish while time allows, then the kept replies go out if the broker is there.
 */
async function drainSkull(s: { client: MqttClient; topics: SkullTopics; actor: SkullActorRef; replies: ReplyChannel; log: Logger }, deadlineAt: number): Promise<void> {
  const { client, actor, replies, log } = s;
  const { outbox } = replies;
  const startedAt = Date.now();
  await client.unsubscribeAsync(inputTopics(s.topics)).catch((err: Error) => log.warn({ err: err.message }, 'inputs not unsubscribed (broker away)'));
  const atStart = inFlight(actor.getSnapshot());
  if (atStart > 0) await idleOrDeadline(actor, deadlineAt);
  if (outbox.size > 0 && client.connected) {
    await Promise.race([replies.flush(), new Promise((resolve) => setTimeout(resolve, Math.max(0, deadlineAt - Date.now())).unref())]);
  }
  const snap = actor.getSnapshot();
  const cut = { inFlight: snap.matches({ turn: 'idle' }) ? 0 : 1, queued: snap.context.queue.length, kept: outbox.size };
  for (const job of snap.context.queue) log.warn({ text: job.text.slice(0, 80), waitedMs: Date.now() - job.at }, 'skull stop: queued turn dropped (shutdown deadline)');
  if (cut.inFlight) log.warn('skull stop: the turn in flight was cut at the shutdown deadline');
  if (cut.kept > 0) outbox.drop();
  const drained = Math.max(0, atStart - cut.inFlight - cut.queued);
  log[cut.inFlight + cut.queued + cut.kept > 0 ? 'warn' : 'info']({ drained, cut, ms: Date.now() - startedAt }, 'skull drained');
}
