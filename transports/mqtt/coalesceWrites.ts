import type { MqttClient } from 'mqtt';

/**
 * Holds the connection's socket writes until the end of this event-loop turn (setImmediate), so
 * that what the turn writes — the PUBACK of the request mqtt.js sends right after the `message`
 * event, then the reply when it is ready within the same turn (a 0-ms model: the chart's
 * microtasks) — leaves in one write instead of two. Same bytes, same order on the wire: a
 * corked Writable keeps its writes queued in order and flushes them as one writev. mqtt-packet
 * already corks each packet until the next tick; this only stretches that to the turn's end, so
 * the PUBACK of a request whose model takes longer goes out at the end of the turn as before
 * (issue 17: each write wakes the broker, and the responder baseline writes once).
 */
export function coalesceWritesOfThisTurn(client: MqttClient): void {
  const stream = client.stream as { cork?: () => void; uncork?: () => void } | undefined;
  if (!stream?.cork || !stream.uncork) return;
  const held = heldStreams.get(client);
  if (held === stream) return; // already held for this turn
  stream.cork();
  heldStreams.set(client, stream);
  setImmediate(() => {
    heldStreams.delete(client);
    // A reconnection replaces client.stream; the corked one is uncorked all the same.
    stream.uncork!();
  });
}

const heldStreams = new WeakMap<MqttClient, { uncork?: () => void }>();
