import { beforeEffectLeaves } from '../journal/durable.js';
import { tuningOn } from './switches.js';

/** An MQTT client (mqtt.js's `MqttClient`): only its current socket stream is used here. */
export interface StreamHolder {
  readonly stream?: unknown;
}

/**
 * Holds the connection's socket writes until the end of this event-loop turn (setImmediate), so
 * that what the turn writes — the PUBACK of the request mqtt.js sends right after the `message`
 * event, then the reply when it is ready within the same turn (a 0-ms model: the chart's
 * microtasks) — leaves in one write instead of two. Same bytes, same order on the wire: a
 * corked Writable keeps its writes queued in order and flushes them as one writev. mqtt-packet
 * already corks each packet until the next tick; this only stretches that to the turn's end, so
 * the PUBACK of a request whose model takes longer goes out at the end of the turn as before
 * (each write wakes the broker, and a plain responder writes once per turn).
 *
 * The edge that writes the reply lets the held writes go as soon as the reply is handed to
 * mqtt.js (`releaseHeldWrites`): what the turn does after that (the chart's end of step) no
 * longer delays the reply's write — ≈ 20 µs of the request → reply path of `palabre skull`.
 *
 * With `TUNING_OFF=mqtt-writes-per-turn` nothing is held: mqtt-packet's own per-packet cork
 * stays, and the release finds nothing to let go.
 */
export function coalesceWritesOfThisTurn(client: StreamHolder): void {
  if (!tuningOn('mqtt-writes-per-turn')) return;
  const stream = client.stream as Corkable | undefined;
  if (!stream?.cork || !stream.uncork) return;
  if (holds.get(client)?.stream === stream) return; // already held for this turn
  const hold: Hold = { stream, released: false };
  stream.cork();
  holds.set(client, hold);
  setImmediate(() => release(client, hold));
}

/**
 * Lets the writes held for this turn go now (no-op when none are held): they are handed to the
 * socket before this returns. mqtt-packet corks the stream again for each packet it writes and
 * uncorks it at the next tick, so lifting only this hold would still leave the reply waiting for
 * that tick — after the rest of the chart's step and every pending microtask (≈ 8–10 µs of the
 * request → reply path of `palabre skull`). So the stream is uncorked down to
 * zero, which writes what it holds at once, then corked again as many times: the nextTick uncorks
 * mqtt-packet has scheduled still balance, and a packet written later in this tick is still held
 * until then, as mqtt-packet means it to be.
 */
export function releaseHeldWrites(client: StreamHolder): void {
  const hold = holds.get(client);
  if (!hold) return;
  release(client, hold);
  const { stream } = hold;
  const pending = stream.writableCorked ?? 0;
  if (pending <= 0 || !stream.cork) return;
  for (let i = 0; i < pending; i++) stream.uncork!();
  for (let i = 0; i < pending; i++) stream.cork();
}

interface Corkable {
  cork?: () => void;
  uncork?: () => void;
  readonly writableCorked?: number;
}

interface Hold {
  stream: Corkable;
  released: boolean;
}

function release(client: StreamHolder, hold: Hold): void {
  if (hold.released) return;
  hold.released = true;
  if (holds.get(client) === hold) holds.delete(client);
  // What the turn wrote acknowledges what it received (the request's PUBACK): the journal's steps
  // go first. On Postgres the promise is not awaited here (a socket cannot wait): the reply itself
  // waits for it at its edge.
  void beforeEffectLeaves();
  // A reconnection replaces client.stream; the corked one is uncorked all the same.
  hold.stream.uncork!();
}

const holds = new WeakMap<StreamHolder, Hold>();
