import type { SnapshotFrom } from 'xstate';
import { breakerOpen, deviceStats, inFlight, nextModel, queuedJobs, replyLatencyP50, type SkullSnapshot } from '../../machines/skull.js';
import { fleetStats, liveCount, maxActors, type skullFleetMachine } from '../../machines/skullFleet.js';
import type { SkullSettings } from '../../machines/skullTypes.js';
import type { EdgeRejectReason, InputLedger } from './skullCodec.js';
import type { ReplyChannel } from './replyChannel.js';
import type { SkullDevices } from './skullDevices.js';

/**
 * The Skull's health, one definition for one device and for a fleet: a device's figures come from
 * its chart's selectors (machines/skull.ts) and its reply channel; what the edge refused from the
 * input ledger. One device publishes its own (`ai/health`); a fleet publishes the sum over its
 * live devices with the supervisor's counts (`<p>/_service/<instance>/health`).
 */

/** What the edge's refusals add to a health payload. */
interface RejectedHealth {
  rejected: number;
  rejected_by_reason: Partial<Record<EdgeRejectReason, number>>;
  invalid_config: number;
  last_config_error: string | null;
}

/** The retained `ai/health` payload of one device (docs/skull.md#topics). */
export interface HealthPayload extends RejectedHealth {
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

/** The retained health of a fleet's process (docs/skull.md#fleets-one-actor-per-device). */
export interface FleetHealth extends RejectedHealth {
  ts_ms: number;
  ok: boolean;
  instance: string;
  shard: string;
  live_actors: number;
  max_actors: number;
  busy_actors: number;
  breakers_open: number;
  spawned: number;
  idle_stopped: number;
  evicted: number;
  refused: number;
  other_shard: number;
  configs_kept: number;
  replies_kept: number;
  replies_expired: number;
  publish_errors: number;
  provider: string;
  mqtt_protocol: 4 | 5;
}

function rejectedHealth(ledger: InputLedger): RejectedHealth {
  return { rejected: ledger.rejectedTotal, rejected_by_reason: { ...ledger.rejected }, invalid_config: ledger.invalidConfig, last_config_error: ledger.lastConfigError };
}

/** Publish errors of one device: the chart counts a publish that timed out, the transport one the broker refused. */
function publishErrorsOf(snap: SkullSnapshot, replies: ReplyChannel): number {
  return deviceStats(snap).publishErrors + replies.publishErrors;
}

export interface DeviceHealthSources {
  snapshot: SkullSnapshot;
  connected: boolean;
  protocolVersion: 4 | 5;
  replies: ReplyChannel;
  ledger: InputLedger;
  settings: SkullSettings;
  providerName: string;
  promptSource: HealthPayload['prompt_source'];
  now: () => number;
}

/** One device's health now. */
export function deviceHealth(h: DeviceHealthSources): HealthPayload {
  const snap = h.snapshot;
  const stats = deviceStats(snap);
  const { outbox } = h.replies;
  const { rejected, rejected_by_reason, invalid_config, last_config_error } = rejectedHealth(h.ledger);
  return {
    ts_ms: h.now(),
    ok: h.connected && snap.status === 'active',
    latency_p50: replyLatencyP50(snap),
    in_flight: inFlight(snap),
    queued: queuedJobs(snap).length,
    dropped: stats.dropped,
    busy_ignored: stats.busyIgnored,
    duplicates: stats.duplicates,
    redirected: stats.redirected,
    cancelled: stats.cancelled,
    apologies: stats.apologies,
    fallbacks: stats.fallbacks,
    rejected,
    rejected_by_reason,
    invalid_config,
    last_config_error,
    breaker: breakerOpen(snap) ? 'open' : 'closed',
    model: nextModel(snap),
    fallback_model: h.settings.fallbackModel,
    provider: h.providerName,
    mqtt_protocol: h.protocolVersion,
    prompt_source: h.promptSource,
    publish_errors: publishErrorsOf(snap, h.replies),
    replies_expired: outbox.expired,
    replies_kept: outbox.size,
  };
}

export interface FleetHealthSources {
  supervisor: SnapshotFrom<typeof skullFleetMachine>;
  devices: SkullDevices;
  ledger: InputLedger;
  connected: boolean;
  instance: string;
  shard: string;
  configsKept: number;
  providerName: string;
  protocolVersion: 4 | 5;
  now: () => number;
}

/** A fleet's health now: the supervisor's counts, the sum of its live devices' figures, the edge's own. */
export function fleetHealth(h: FleetHealthSources): FleetHealth {
  const { devices } = h;
  const stats = fleetStats(h.supervisor);
  let busy = 0;
  let open = 0;
  let kept = 0;
  let expired = devices.repliesExpiredGone;
  let publishErrors = devices.publishErrorsGone;
  for (const [, actor, device] of devices.live()) {
    const snap = actor.getSnapshot();
    if (inFlight(snap) > 0) busy++;
    if (breakerOpen(snap)) open++;
    kept += device.replies.outbox.size;
    expired += device.replies.outbox.expired;
    publishErrors += publishErrorsOf(snap, device.replies);
  }
  return {
    ts_ms: h.now(),
    ok: h.connected && h.supervisor.status === 'active',
    instance: h.instance,
    shard: h.shard,
    live_actors: liveCount(h.supervisor),
    max_actors: maxActors(h.supervisor),
    busy_actors: busy,
    breakers_open: open,
    spawned: stats.spawned,
    idle_stopped: stats.idleStopped,
    evicted: stats.evicted,
    refused: stats.refused,
    ...rejectedHealth(h.ledger),
    other_shard: h.ledger.otherShard,
    configs_kept: h.configsKept,
    replies_kept: kept,
    replies_expired: expired,
    publish_errors: publishErrors,
    provider: h.providerName,
    mqtt_protocol: h.protocolVersion,
  };
}
