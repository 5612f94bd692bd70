import type { MqttClient } from 'mqtt';
import type { Logger } from '../../core/log.js';
import { inFlight, queuedJobs, turnRunning } from '../../machines/skull.js';
import type { SkullDevices } from './skullDevices.js';

/**
 * The Skull edge's graceful stop, for one device and a fleet alike (transports/mqtt/skullEdge.ts).
 */

/** Resolves once no device has a turn in flight, or at `deadlineAt`. */
function idleOrDeadline(devices: SkullDevices, deadlineAt: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const subs: Array<{ unsubscribe(): void }> = [];
    const timer = setTimeout(done, Math.max(0, deadlineAt - Date.now()));
    const check = () => {
      if (devices.busyIds().length === 0) done();
    };
    for (const [, actor] of devices.live()) subs.push(actor.subscribe(check));
    check();
    function done(): void {
      clearTimeout(timer);
      for (const s of subs) s.unsubscribe();
      resolve();
    }
  });
}

/** Lines logged per kind of cut at most: a fleet may cut many turns at once. */
const CUT_LOG_LINES = 20;

/**
 * Graceful stop, once core has unsubscribed the inputs (no new input): the turns in flight and the
 * queues run to their publish while time allows, then the kept replies go out if the broker is
 * there; what is left is logged and dropped.
 */
export async function drain(d: { client: MqttClient; devices: SkullDevices; log: Logger; fleet: boolean }, deadlineAt: number): Promise<void> {
  const { client, devices, log } = d;
  const startedAt = Date.now();
  let atStart = 0;
  for (const [, actor] of devices.live()) atStart += inFlight(actor.getSnapshot());
  if (atStart > 0) await idleOrDeadline(devices, deadlineAt);
  const channels = [...devices.edges.values()].map((e) => e.replies).filter((c) => c.outbox.size > 0);
  if (channels.length > 0 && client.connected) {
    await Promise.race([Promise.all(channels.map((c) => c.flush())), new Promise((resolve) => setTimeout(resolve, Math.max(0, deadlineAt - Date.now())).unref())]);
  }
  const cut = { inFlight: 0, queued: 0, kept: 0 };
  const cutDevices: string[] = [];
  for (const [deviceId, actor, edge] of devices.live()) {
    const snap = actor.getSnapshot();
    const fleetTag = d.fleet ? { deviceId } : {};
    for (const job of queuedJobs(snap)) {
      if (cut.queued++ < CUT_LOG_LINES) log.warn({ ...fleetTag, text: job.text.slice(0, 80), waitedMs: Date.now() - job.at }, 'skull stop: queued turn dropped (shutdown deadline)');
    }
    if (turnRunning(snap)) {
      if (cut.inFlight++ < CUT_LOG_LINES) log.warn(fleetTag, 'skull stop: the turn in flight was cut at the shutdown deadline');
      cutDevices.push(deviceId);
    }
    const kept = edge.replies.outbox.size;
    if (kept > 0) {
      cut.kept += kept;
      edge.replies.outbox.drop();
    }
  }
  const drained = Math.max(0, atStart - cut.inFlight - cut.queued);
  log[cut.inFlight + cut.queued + cut.kept > 0 ? 'warn' : 'info']({ drained, cut, ms: Date.now() - startedAt, ...(cutDevices.length > 1 ? { cutDevices: cutDevices.slice(0, CUT_LOG_LINES) } : {}) }, 'skull drained');
}

