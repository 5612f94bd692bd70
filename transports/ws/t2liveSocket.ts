import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { z } from 'zod';
import type { AnyActorLogic, AnyActorRef } from 'xstate';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import { SessionEvents } from '../../core/tuning/chartEventsAfterAudio.js';
import { CLOSE, type RestoredSession, type T2Emitted, type T2Event } from '../../machines/t2live.js';
import { FRAME_ERRORS, parseClientFrame, querySchema, selectProtocol, sendEmitted, sendJson, upgradeToken } from './t2liveFrames.js';
import { beforeEffectLeaves } from '../../core/journal/durable.js';
import { batchTickWrites, rememberRawSocket } from '../../core/tuning/batchWritesPerTick.js';
import type { UpgradeSource } from '../../core/http/upgrades.js';


/**
 * The T2 live socket: `GET /t2/live?sujet=<id>[&mode=audio|text]` with the subprotocols
 * `palabre.t2, palabre.bearer.<JWT>` (or, for older clients, `&token=<JWT>`) (docs/t2-live.md).
 * This file routes: one session actor per accepted socket, each frame to the session the socket
 * is bound to (its own, or the older session of the same candidate it resumed), what the session
 * emits back to the socket attached to it now, and the drain on stop. The bytes (query, frames
 * in, emitted events out) are parsed and serialized by transports/ws/t2liveFrames.ts.
 */

export const T2_LIVE_PATH = '/t2/live';
/** Hard cap: frames above it are refused by `ws` itself with close 1009. */
const HARD_MAX_PAYLOAD = 1024 * 1024;
/** Idle resets are sent at most this often while frames arrive. */
const ACTIVITY_EVERY_MS = 1000;

/** Close code of a socket whose session was resumed by a newer socket of the same candidate. */
export const RESUMED_ELSEWHERE = 4409;

/** One session actor and the socket it is attached to (none while it waits for a reconnect). */
interface Session {
  systemId: string;
  sessionId: string;
  ref: AnyActorRef;
  done: Promise<void>;
  reported: boolean;
  audio: SessionAudio | undefined;
  ws: WebSocket | undefined;
  /** Origin of text-mode turn times (`atMs`), kept across reconnects. */
  openedAt: number;
  /** Stops the actor where it is (no save), lets its admission go, and forgets it. */
  halt(): void;
  /** Lets the admission go, once however often called; resolves when it has. */
  release(): Promise<void>;
}

/** What every socket of one T2 socket server shares. */
interface Hub {
  opts: T2SocketOptions;
  /** Open sockets, each with the systemId of the session it feeds. */
  live: Map<WebSocket, string>;
  /** Every session actor until it completes (its socket may be gone while it saves). */
  running: Map<string, Session>;
  /** Counts a refused input in the metrics. */
  reject(reason: string): void;
}

interface SessionRequest {
  sessionId: string;
  sujetId: string;
  mode: 'audio' | 'text';
  token: string | undefined;
  /** `resume=1`: only resume the candidate's session that lost its socket. */
  resume: boolean;
  /** `takeover=1`: end the candidate's session live elsewhere (they confirmed it) and start this one. */
  takeover?: boolean;
  /** A session another instance held, taken over by this reconnect: rebuilt from its row. */
  restore?: RestoredSession;
}

export interface T2SocketOptions {
  server: UpgradeSource;
  runtime: Runtime;
  logger: Logger;
  metrics?: Metrics;
  maxFrameBytes: number;
  maxSessions: number;
  /** Audio when a Gemini key is configured; text otherwise (the client may ask for text). */
  defaultMode: 'audio' | 'text';
  /** Builds the session's machine (actors/t2/t2Wiring.ts), and its audio path when it has one. */
  wire: (req: SessionRequest) => { logic: AnyActorLogic; input: unknown; audio?: SessionAudio };
  /**
   * Asked before the upgrade completes (several instances: the candidate may be live on another
   * one). A refusal closes the socket with its code; an admission's `done` is called once the
   * session ends (or never started).
   */
  admit?: (req: { token: string | undefined; sessionId: string; resume: boolean }) => Promise<Admission>;
}

/**
 * `done` lets the admission go (e.g. deletes the candidate's claim); it resolves once it has.
 * `takenOver`: the reconnect took over a session another instance held (its id and what it persisted).
 */
export type Admission = { ok: true; done(): Promise<void>; takenOver?: { sessionId: string; restore: RestoredSession } } | { ok: false; code: number; name: string; message: string };

/** What `admit` let through: the session id it claimed for, and the release. */
interface Admitted {
  sessionId: string;
  done: () => Promise<void>;
  takenOver?: { sessionId: string; restore: RestoredSession };
}

/**
 * A session's direct audio path (actors/t2/audioPipe.ts), gated by the session's chart: audio
 * chunks are routed here instead of becoming one XState event each.
 */
interface SessionAudio {
  /** Where the interlocutor's audio leaves: this socket's binary frames. */
  attachClient(send: (pcm: Uint8Array) => void): void;
  /** A validated candidate chunk (`base64`: the same bytes as the client encoded them). */
  candidate(pcm: Uint8Array, base64?: string): boolean;
}

interface DrainOptions {
  /** Sessions still grading then are told to save without their report (graded at next start). */
  gradeBy: number;
  /** Sessions not ended by then are cut (their socket closed 1001; the next start recovers them). */
  deadlineAt: number;
  /**
   * Other instances run: live sessions are handed over (`server.handover`: their page reconnects
   * to another instance, which takes them over) instead of ended; the others drain as usual.
   */
  handOver?: boolean;
}

interface DrainOutcome {
  /** Sessions ended and saved, and of those, how many sent their report. */
  drained: number;
  reported: number;
  /** Sessions ended without a report: saved ungraded (time ran out while grading), or nothing to save. */
  withoutReport: number;
  /** Sessions still running at the deadline. */
  cut: number;
  /** Sessions handed over to another instance (`handOver`). */
  handedOver: number;
}

export interface T2Socket {
  sessions(): number;
  /**
   * Graceful stop: new upgrades get 503, every live session is ended as if « Terminer » was
   * pressed (`server.shutdown`), and this resolves once they all ended or at `deadlineAt`.
   */
  drain(opts: DrainOptions): Promise<DrainOutcome>;
  /**
   * Self-fencing (actors/t2/surface.ts): every session is stopped where it is, nothing saved —
   * its row is another instance's to close and grade — and its socket gets `frame` then a close
   * with `frame.code`. Returns the sessions' ids.
   */
  interrupt(frame: { code: number; name: string; message: string }): string[];
  close(): Promise<void>;
}

/** Resolves when `done` resolves or at the wall-clock time `at`, whichever first. */
function until(done: Promise<unknown>, at: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    done.then(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, at - Date.now()));
    }),
  ]).finally(() => clearTimeout(timer));
}

export function attachT2LiveSocket(opts: T2SocketOptions): T2Socket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: HARD_MAX_PAYLOAD, perMessageDeflate: false, handleProtocols: selectProtocol });
  const hub: Hub = { opts, live: new Map(), running: new Map(), reject: (reason) => opts.metrics?.inputRejected.inc({ surface: 't2', reason }) };
  let draining = false;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== T2_LIVE_PATH) return; // another surface's upgrade
    if (draining) {
      // The browser sees a failed connection; Retry-After says when another instance may take it.
      socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const { token } = upgradeToken(req.headers['sec-websocket-protocol'], url);
    const admit = opts.admit;
    if (!admit) {
      wss.handleUpgrade(req, socket, head, (ws) => {
        rememberRawSocket(ws, socket);
        accept(hub, ws, url, token);
      });
      return;
    }
    const sessionId = randomUUID();
    admit({ token, sessionId, resume: url.searchParams.get('resume') === '1' }).then(
      (admission) => {
        if (!socket.readable || !socket.writable) {
          if (admission.ok) void admission.done();
          socket.destroy();
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          rememberRawSocket(ws, socket);
          if (admission.ok) return accept(hub, ws, url, token, { sessionId, done: admission.done, ...(admission.takenOver ? { takenOver: admission.takenOver } : {}) });
          hub.reject('admission');
          sendJson(ws, { type: 'error', code: admission.code, name: admission.name, message: admission.message });
          ws.close(admission.code, admission.name);
        });
      },
      (err: unknown) => {
        opts.logger.error({ err: (err as Error).message }, 't2 admission failed');
        socket.destroy();
      },
    );
  };
  opts.server.on('upgrade', onUpgrade);

  return {
    sessions: () => hub.live.size,
    async drain(d) {
      draining = true;
      return drainSessions(hub.running, d);
    },
    interrupt(frame) {
      const sessions = [...hub.running.values()];
      for (const s of sessions) {
        const ws = s.ws;
        s.ws = undefined;
        s.halt();
        if (ws?.readyState === WebSocket.OPEN) {
          sendJson(ws, { type: 'error', ...frame });
          ws.close(frame.code, frame.name);
        }
      }
      return sessions.map((s) => s.sessionId);
    },
    async close() {
      draining = true;
      opts.server.off('upgrade', onUpgrade);
      // Only sockets still open: a session's own close (1000 after its report) may be under way.
      for (const ws of hub.live.keys()) if (ws.readyState === WebSocket.OPEN) ws.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** A new socket: a valid query and room left, then its own session actor and its frames routed. */
function accept(hub: Hub, ws: WebSocket, url: URL, token: string | undefined, admitted?: Admitted): void {
  const q = querySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!q.success || hub.live.size >= hub.opts.maxSessions) void admitted?.done();
  if (!q.success) {
    hub.reject('bad_query');
    ws.close(CLOSE.AUTH_REQUIRED, 'AUTH_REQUIRED');
    return;
  }
  if (hub.live.size >= hub.opts.maxSessions) {
    hub.reject('too_many_sessions');
    sendJson(ws, { type: 'error', code: CLOSE.TOO_MANY_SESSIONS, name: 'TOO_MANY_SESSIONS', message: 'Trop de sessions en cours, réessayez dans un instant.' });
    ws.close(CLOSE.TOO_MANY_SESSIONS, 'TOO_MANY_SESSIONS');
    return;
  }
  const own = startSession(hub, ws, { ...q.data, token }, admitted);
  if (own) routeSocket(hub, ws, own);
}

/** Starts the session actor the wiring builds for this socket; it stays in `running` until it completes. */
function startSession(hub: Hub, ws: WebSocket, q: z.infer<typeof querySchema>, admitted?: Admitted): Session | undefined {
  const { opts } = hub;
  const taken = admitted?.takenOver;
  const sessionId = taken?.sessionId ?? admitted?.sessionId ?? randomUUID();
  const systemId = `t2:${sessionId}`;
  // A session taken over keeps its own subject and mode, whatever this reconnect's query says.
  const { logic, input, audio } = taken
    ? opts.wire({ sessionId, sujetId: taken.restore.sujetId, mode: taken.restore.mode, token: q.token, resume: false, restore: taken.restore })
    : opts.wire({ sessionId, sujetId: q.sujet ?? '', mode: q.mode ?? opts.defaultMode, token: q.token, resume: q.resume === '1', ...(q.takeover === '1' ? { takeover: true } : {}) });
  let actor: AnyActorRef;
  try {
    actor = opts.runtime.start('t2live', systemId, logic, input);
  } catch (err) {
    opts.logger.error({ err: (err as Error).message }, 't2 session did not start');
    void admitted?.done();
    ws.close(CLOSE.INTERNAL, 'INTERNAL');
    return undefined;
  }
  hub.live.set(ws, systemId);
  let finished!: () => void;
  let released: Promise<void> | undefined;
  const release = (): Promise<void> => (released ??= admitted?.done() ?? Promise.resolve());
  const own: Session = { systemId, sessionId, ref: actor, done: new Promise<void>((resolve) => (finished = resolve)), reported: false, audio, ws, openedAt: Date.now(), halt: () => {}, release };
  hub.running.set(systemId, own);
  audio?.attachClient((pcm) => {
    const to = own.ws;
    if (to && to.readyState === to.OPEN) {
      batchTickWrites(to);
      to.send(pcm, { binary: true });
    }
  });
  let over = false;
  const ended = (): void => {
    if (over) return;
    over = true;
    opts.runtime.stop(systemId);
    hub.running.delete(systemId);
    // Done once the admission is let go: the final close (1000, after the report) waits for that
    // release (see forward), and a drain that stopped waiting before it would close the socket
    // 1001 first — the page would then say the connection was lost although it has its report.
    void release().then(finished, finished);
  };
  const sub = actor.subscribe({
    complete: () => {
      sub.unsubscribe();
      ended();
    },
    error: (err: unknown) => {
      opts.logger.error({ err: (err as Error).message, session: sessionId }, 't2 session failed');
      if (own.ws?.readyState === WebSocket.OPEN) own.ws.close(CLOSE.INTERNAL, 'INTERNAL');
      ended();
    },
  });
  own.halt = () => {
    sub.unsubscribe();
    ended();
  };
  return own;
}

/** What a session emits goes to the socket it is attached to now (none while it waits). */
function forward(session: Session, e: T2Emitted): void {
  if (e.type === 'client.report') session.reported = true;
  if (e.type === 'client.close' && session.ws) {
    // Only final states close: the candidate's admission (its claim, shared by every instance)
    // goes first, so that a client reconnecting on this close — through the balancer, maybe to
    // another instance — finds the candidate free instead of ACTIVE_ELSEWHERE.
    const ws = session.ws;
    // A release that failed (the claim then expires) still lets the close go.
    const close = (): void => {
      void beforeEffectLeaves();
      sendEmitted(ws, e);
    };
    void session.release().then(close, close);
    return;
  }
  if (session.ws) {
    // Held frames leave at the tick's end, after the journal's write (core/tuning/batchWritesPerTick.ts);
    // a frame not held leaves now: the steps that made it are written first (core/journal/durable.ts).
    if (!batchTickWrites(session.ws)) void beforeEffectLeaves();
    sendEmitted(session.ws, e);
  }
}

/**
 * One session per candidate: the chart of a new socket found an older session of the same
 * candidate waiting for its client, and hands the socket over to it. Returns the older session,
 * which this socket now feeds and whose emitted events it now receives.
 */
function handover(hub: Hub, ws: WebSocket, own: Session, olderId: string): Session | undefined {
  const older = hub.running.get(olderId);
  if (!older) {
    ws.close(CLOSE.INTERNAL, 'INTERNAL');
    return undefined;
  }
  // The older session's previous socket (if the server still thought it open) is let go first,
  // so its close is not taken for this client leaving.
  const stale = older.ws;
  older.ws = ws;
  own.ws = undefined;
  hub.live.set(ws, older.systemId);
  if (stale && stale !== ws && (stale.readyState === stale.OPEN || stale.readyState === stale.CONNECTING)) {
    // The tab it leaves says why before the close: the session goes on, elsewhere.
    sendJson(stale, { type: 'error', code: RESUMED_ELSEWHERE, name: 'RESUMED_ELSEWHERE', message: 'La séance continue dans un autre onglet ou une autre fenêtre.' });
    stale.close(RESUMED_ELSEWHERE, 'RESUMED_ELSEWHERE');
  }
  hub.opts.logger.info({ session: older.sessionId }, 't2 session resumed by a reconnect');
  older.ref.send({ type: 'client.resumed' } satisfies T2Event);
  return older;
}

/**
 * Routes one socket: its frames to the session it is bound to — its own, or, after a handover,
 * the older session of the same candidate it resumed — and its close to that session.
 */
function routeSocket(hub: Hub, ws: WebSocket, own: Session): void {
  const { opts } = hub;
  let bound: Session = own;
  const send = (e: T2Event): void => bound.ref.send(e);
  // Idle detection needs to know frames arrive, not each one: one activity event per second,
  // after the loop's reads (core/tuning/chartEventsAfterAudio.ts) rather than in the frame's handler: the chunk
  // that triggers it, and every session's chunk read after it, need not wait for a chart step —
  // and sessions that started together send theirs on the same tick, a burst of them each second.
  let lastActivity = 0;
  const activityEvents = new SessionEvents<T2Event>(send);
  const activity = (): void => {
    const now = Date.now();
    if (now - lastActivity < ACTIVITY_EVERY_MS) return;
    lastActivity = now;
    activityEvents.push({ type: 'client.activity' });
  };
  const candidateAudio = (pcm: Buffer, base64?: string): void => {
    if (bound.audio) bound.audio.candidate(pcm, base64);
    else send({ type: 'client.audio', pcm });
    activity();
  };

  own.ref.on('*', (raw: unknown) => {
    const e = raw as T2Emitted;
    if (e.type === 'client.handover') bound = handover(hub, ws, own, e.systemId) ?? bound;
    else forward(own, e);
  });

  ws.on('message', (data, isBinary) => {
    const frame = parseClientFrame(data, isBinary, opts.maxFrameBytes);
    switch (frame.kind) {
      case 'refused':
        hub.reject(frame.name.toLowerCase());
        sendJson(ws, { type: 'error', code: FRAME_ERRORS[frame.name], name: frame.name, message: frame.message });
        return;
      case 'audio':
        candidateAudio(frame.pcm, frame.base64);
        return;
      case 'end':
        send({ type: 'client.end' });
        return;
      case 'text':
        send({ type: 'client.text', text: frame.text, atMs: Date.now() - bound.openedAt });
        return;
    }
  });
  ws.on('close', () => {
    activityEvents.close();
    hub.live.delete(ws);
    // Only the socket the session is attached to speaks for its client (not one it let go).
    if (bound.ws !== ws) return;
    bound.ws = undefined;
    // The machine waits for a reconnect, or saves what exists, without a client.
    if (bound.ref.getSnapshot().status === 'active') send({ type: 'client.disconnected' });
  });
  ws.on('error', (err) => opts.logger.warn({ err: err.message, session: bound.sessionId }, 't2 socket error'));
}

/**
 * Graceful stop: every live session is ended as if « Terminer » was pressed; those still grading
 * at `gradeBy` save without their report; those still running at `deadlineAt` are cut.
 */
async function drainSessions(running: Map<string, Session>, { gradeBy, deadlineAt, handOver }: DrainOptions): Promise<DrainOutcome> {
  const sessions = [...running.values()];
  // Only a live dialogue is handed over; a session still connecting, or already closing, drains.
  const handed = handOver ? sessions.filter((s) => s.ref.getSnapshot().hasTag('resumable')) : [];
  for (const s of sessions) s.ref.send({ type: handed.includes(s) ? 'server.handover' : 'server.shutdown' } satisfies T2Event);
  const all = Promise.all(sessions.map((s) => s.done));
  await until(all, gradeBy);
  // Still grading: save now without the report; the next start grades it.
  const stillRunning = (s: Session): boolean => [...running.values()].includes(s);
  for (const s of sessions.filter(stillRunning)) s.ref.send({ type: 'server.deadline' } satisfies T2Event);
  await until(all, deadlineAt);
  const cut = sessions.filter(stillRunning).length;
  const reported = sessions.filter((s) => s.reported).length;
  return { drained: sessions.length - cut - handed.length, reported, withoutReport: sessions.length - cut - reported - handed.length, cut, handedOver: handed.length };
}
