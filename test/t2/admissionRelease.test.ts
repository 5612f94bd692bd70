/**
 * The order between a session's end and its admission's release on the real WebSocket edge
 * (transports/ws/t2liveSocket.ts): the candidate's claim is let go before the close frame leaves, so a
 * client that starts again on the close — maybe on another instance — finds the candidate free
 * (docs/scaling.md). The release here is held by the test, so the order is checked, not raced.
 */
import WebSocket from 'ws';
import { emit, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { Runtime } from '../../core/runtime.js';
import { silentLogger } from '../../core/log.js';
import { attachT2LiveSocket } from '../../transports/ws/t2liveSocket.js';
import { useBareServer } from './bareServerSuite.js';

/** A session that ends when the candidate says `end`, closing with 1000 as the real chart does. */
const endsOnRequest = setup({ types: { emitted: {} as { type: 'client.close'; code: number; reason: string } } }).createMachine({
  initial: 'live',
  states: {
    live: { on: { 'client.end': 'ended' } },
    ended: { type: 'final', entry: emit({ type: 'client.close', code: 1000, reason: 'ended' }) },
  },
});

const bare = useBareServer();

/** The T2 edge on the bare server, whose admissions are let go only when the test calls `release`. */
function edgeWithHeldRelease(logic: typeof endsOnRequest | typeof reportsOnDrain, maxSessions: number) {
  let count = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const socket = attachT2LiveSocket({
    server: bare.server,
    runtime: new Runtime(),
    logger: silentLogger(),
    maxFrameBytes: 64_000,
    maxSessions,
    defaultMode: 'text',
    wire: () => ({ logic, input: undefined }),
    admit: () => Promise.resolve({ ok: true, done: () => { count++; return released; } }),
  });
  return { socket, releases: () => count, release };
}

describe('t2 edge: admission released before the close', () => {
  it('sends the close frame only once the admission has been let go, and lets it go once', async () => {
    const { socket, releases, release } = edgeWithHeldRelease(endsOnRequest, 4);
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${bare.port}/t2/live?sujet=club-de-sport&mode=text`);
      let closedWith: number | undefined;
      const closed = new Promise<void>((resolve) => ws.on('close', (code) => { closedWith = code; resolve(); }));
      await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
      ws.send(JSON.stringify({ type: 'end' }));
      await expect.poll(releases).toBe(1);
      // The session is over and its release asked for, not done: a ping round trip comes back
      // before any close (a close frame sent before it would arrive first, on the same socket).
      await new Promise<void>((resolve) => {
        if (ws.readyState !== WebSocket.OPEN) return resolve();
        ws.once('pong', () => resolve());
        ws.once('close', () => resolve());
        ws.ping();
      });
      expect(closedWith).toBeUndefined();
      release();
      await closed;
      expect(closedWith).toBe(1000);
      expect(releases()).toBe(1);
    } finally {
      await socket.close?.();
    }
  });
});

/** A session that, on the server's drain, sends its report then closes 1000, as the real chart does. */
const reportsOnDrain = setup({ types: { emitted: {} as { type: 'client.report'; report: string } | { type: 'client.close'; code: number; reason: string } } }).createMachine({
  initial: 'live',
  states: {
    live: { on: { 'server.shutdown': 'ended' } },
    ended: { type: 'final', entry: [emit({ type: 'client.report', report: 'the report' }), emit({ type: 'client.close', code: 1000, reason: 'ended' })] },
  },
});

describe('t2 edge: a drained session that sent its report closes 1000', () => {
  it('the drain waits for the admission’s release, so the close after the report is not overtaken by the shutdown’s 1001', async () => {
    // Slow releases (a claim deleted on a busy Postgres): held by the test, let go after the sessions ended.
    const { socket, releases, release } = edgeWithHeldRelease(reportsOnDrain, 8);
    const clients = await Promise.all(Array.from({ length: 3 }, async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${bare.port}/t2/live?sujet=club-de-sport&mode=text`);
      const got: string[] = [];
      ws.on('message', (data, binary) => {
        if (!binary) got.push((JSON.parse(String(data)) as { type: string }).type);
      });
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
      return { ws, got, closed };
    }));
    const far = Date.now() + 60_000;
    let drainDone = false;
    const drained = socket.drain({ gradeBy: far, deadlineAt: far }).then((o) => {
      drainDone = true;
      return o;
    });
    await expect.poll(releases).toBe(3);
    // Every session ended; their releases are pending: the drain is not over yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(drainDone).toBe(false);
    release();
    expect(await drained).toMatchObject({ drained: 3, reported: 3, cut: 0 });
    // What the surface does next: close what is still open, 1001.
    await socket.close?.();
    for (const c of clients) {
      expect(await c.closed).toBe(1000);
      expect(c.got).toContain('report');
    }
  });
});
