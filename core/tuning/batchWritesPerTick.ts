import type { Duplex } from 'node:stream';
import { beforeEffectLeaves } from '../journal/durable.js';
import { tuningOn } from './switches.js';

/**
 * A page socket's frames written within one tick leave in one `writev` instead of one syscall
 * each. When Gemini's reply arrives, one read of its socket carries several messages (model audio,
 * transcriptions, turn boundaries), each of which sends the page a frame or two: corked until
 * the end of the tick (`process.nextTick`), they go out together — same bytes, same order, same
 * tick, fewer system calls (docs/runtime-tuning.md). ws corks around a frame's header and
 * payload itself; corks nest, so its uncork no longer flushes and ours does.
 *
 * The raw socket is the one the HTTP server's `upgrade` handed to `handleUpgrade`: ws keeps its
 * own reference private, so the transport records it here, keyed by its WebSocket, when the
 * upgrade completes. With `TUNING_OFF=ws-writes-per-tick` nothing is corked: each frame is
 * written when sent, as ws does on its own.
 */
const rawSockets = new WeakMap<object, Duplex>();

export function rememberRawSocket(ws: object, socket: Duplex): void {
  rawSockets.set(ws, socket);
}

/**
 * Holds `ws`'s writes until the end of the current tick (once per tick; nothing if unknown).
 * True when they are held: the journal's steps are then written once for the tick, before the
 * held frames leave; false tells the caller that what it sends now leaves now.
 */
export function batchTickWrites(ws: object): boolean {
  if (!tuningOn('ws-writes-per-tick')) return false;
  const socket = rawSockets.get(ws);
  if (!socket || socket.destroyed) return false;
  if (socket.writableCorked > 0) return held.has(socket);
  socket.cork();
  held.add(socket);
  process.nextTick(uncork, socket);
  return true;
}

const held = new WeakSet<Duplex>();

function uncork(socket: Duplex): void {
  held.delete(socket);
  // The steps that made this tick's frames are durable before the frames leave (one write for
  // every socket of the tick: the first uncork writes, the others find nothing pending).
  void beforeEffectLeaves();
  // end() uncorks fully on its own; uncork() on a socket no longer corked does nothing.
  socket.uncork();
}
