import type { MqttClient } from 'mqtt';
import type { Logger } from '../../core/log.js';
import { isBreakerOpen } from '../../machines/breaker.js';
import { effectiveModel, inFlight, latencyP50, type SkullActorRef } from '../../machines/skull.js';
import type { SkullSettings } from '../../actors/skull/types.js';
import type { ReplyChannel } from './replyChannel.js';
import type { InputLedger } from './skullInputs.js';
import type { RejectReason } from './skullSchemas.js';

/** The retained `ai/health` payload of one device (docs/skull.md#health). */
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

export interface HealthSources {
  actor: SkullActorRef;
  client: MqttClient;
  protocolVersion: 4 | 5;
  replies: ReplyChannel;
  inputs: InputLedger;
  settings: SkullSettings;
  providerName: string;
  promptFromFile: boolean;
  now: () => number;
}

/** The device's health now: the chart's figures (through its selectors), the edge's own counts. */
export function healthOf(h: HealthSources): HealthPayload {
  const snap = h.actor.getSnapshot();
  const ctx = snap.context;
  const { outbox } = h.replies;
  return {
    ts_ms: h.now(),
    ok: h.client.connected && snap.status === 'active',
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
    rejected: h.inputs.rejectedTotal,
    rejected_by_reason: { ...h.inputs.rejected },
    invalid_config: h.inputs.invalidConfig,
    last_config_error: h.inputs.lastConfigError,
    breaker: isBreakerOpen(ctx.breaker.getSnapshot()) ? 'open' : 'closed',
    model: effectiveModel(ctx),
    fallback_model: h.settings.fallbackModel,
    provider: h.providerName,
    mqtt_protocol: h.protocolVersion,
    prompt_source: h.inputs.retainedPrompt ? 'retained' : h.promptFromFile ? 'file' : 'builtin',
    // The chart counts a publish that timed out; the transport one the broker refused.
    publish_errors: ctx.stats.publishErrors + h.replies.publishErrors,
    replies_expired: outbox.expired,
    replies_kept: outbox.size,
  };
}

/** Logs each breaker transition: the fallback model serves every call while it is open. */
export function logBreakerChanges(actor: SkullActorRef, settings: SkullSettings, log: Logger): { unsubscribe(): void } {
  let wasOpen = false;
  return actor.getSnapshot().context.breaker.subscribe((snap) => {
    const open = isBreakerOpen(snap);
    if (open === wasOpen) return;
    wasOpen = open;
    if (open) log.warn({ fallbackModel: settings.fallbackModel, cooldownMs: settings.breaker.cooldownMs }, 'breaker open: fallback model for every call');
    else log.info({ model: settings.model }, 'breaker closed: primary model again');
  });
}
