import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { z } from 'zod';
import type { AnyActorLogic, AnyActorRef } from 'xstate';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import { CLOSE, type T2Emitted, type T2Event } from '../../machines/t2live.js';

/**
 * The T2 live socket: `GET /t2/live?token=<JWT>&sujet=<id>[&mode=audio|text]` (docs/t2-live.md).
 * This file only parses and validates frames, routes them to the session actor, and serializes
 * what the actor emits. Every byte that enters or leaves the socket is here.
 *
 * client → server: binary = PCM16 LE mono 16 kHz; JSON {type:'audio',data:<base64>} |
 *   {type:'end'} | {type:'text',text}.
 * server → client: binary = PCM16 LE mono 24 kHz; JSON {type:'state'|'transcript'|'warning'|
 *   'report'|'error', …}, then the close (1000 after the report; 4001/4003/4004/44xx/1011 otherwise).
 */

export const T2_LIVE_PATH = '/t2/live';
/** Hard cap: frames above it are refused by `ws` itself with close 1009. */
export const HARD_MAX_PAYLOAD = 1024 * 1024;
/** Text-mode messages longer than this are refused (a spoken question is far shorter). */
export const MAX_TEXT_CHARS = 2000;
/** Idle resets are sent at most this often while frames arrive. */
export const ACTIVITY_EVERY_MS = 1000;

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
}

export const FRAME_ERRORS = {
  BAD_FRAME: 4400,
  FRAME_TOO_LARGE: 4413,
} as const;

const querySchema = z.object({
  token: z.string().max(8192).optional(),
  sujet: z.string().max(200).optional(),
  mode: z.enum(['audio', 'text']).optional(),
  /** A reconnect: resume this candidate's session, never start a new one (close 4410 if none). */
  resume: z.enum(['1']).optional(),
});

const clientFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('audio'), data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64') }).strict(),
  z.object({ type: z.literal('end') }).strict(),
  z.object({ type: z.literal('text'), text: z.string().trim().min(1).max(MAX_TEXT_CHARS) }).strict(),
]);

export interface SessionRequest {
  sessionId: string;
  sujetId: string;
  mode: 'audio' | 'text';
  token: string | undefined;
  /** `resume=1`: only resume the candidate's session that lost its socket. */
  resume: boolean;
}

export interface T2SocketOptions {
  server: Server;
  runtime: Runtime;
  logger: Logger;
  metrics?: Metrics;
  maxFrameBytes: number;
  maxSessions: number;
  /** Audio when a Gemini key is configured; text otherwise (the client may ask for text). */
  defaultMode: 'audio' | 'text';
  /** Builds the session's machine (actors/t2/wiring.ts), and its audio path when it has one. */
  wire: (req: SessionRequest) => { logic: AnyActorLogic; input: unknown; audio?: SessionAudio };
  /**
   * Asked before the upgrade completes (several instances: the candidate may be live on another
   * one). A refusal closes the socket with its code; an admission's `done` is called once the
   * session ends (or never started).
   */
  admit?: (req: { token: string | undefined; sessionId: string }) => Promise<Admission>;
}

export type Admission = { ok: true; done(): void } | { ok: false; code: number; name: string; message: string };

/**
 * A session's direct audio path (actors/t2/audioPipe.ts), gated by the session's chart: audio
 * chunks are routed here instead of becoming one XState event each.
 */
export interface SessionAudio {
  /** Where the interlocutor's audio leaves: this socket's binary frames. */
  attachClient(send: (pcm: Uint8Array) => void): void;
  /** A validated candidate chunk (`base64`: the same bytes as the client encoded them). */
  candidate(pcm: Uint8Array, base64?: string): boolean;
}

export interface DrainOptions {
  /** Sessions still grading then are told to save without their report (graded at next start). */
  gradeBy: number;
  /** Sessions not ended by then are cut (their socket closed 1001; the next start recovers them). */
  deadlineAt: number;
}

export interface DrainOutcome {
  /** Sessions ended and saved, and of those, how many sent their report. */
  drained: number;
  reported: number;
  /** Sessions ended without a report: saved ungraded (time ran out while grading), or nothing to save. */
  withoutReport: number;
  /** Sessions still running at the deadline. */
  cut: number;
}

export interface T2Socket {
  sessions(): number;
  /**
   * Graceful stop: new upgrades get 503, every live session is ended as if « Terminer » was
   * pressed (`server.shutdown`), and this resolves once they all ended or at `deadlineAt`.
   */
  drain(opts: DrainOptions): Promise<DrainOutcome>;
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

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export function attachT2LiveSocket(opts: T2SocketOptions): T2Socket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: HARD_MAX_PAYLOAD, perMessageDeflate: false });
  const live = new Map<WebSocket, string>();
  /** Every session actor until it completes (its socket may be gone while it saves). */
  const running = new Map<string, Session>();
  let draining = false;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== T2_LIVE_PATH) return; // another surface's upgrade
    if (draining) {
      // The browser sees a failed connection; Retry-After says when another instance may take it.
      socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const admit = opts.admit;
    if (!admit) {
      wss.handleUpgrade(req, socket, head, (ws) => accept(ws, url));
      return;
    }
    const sessionId = randomUUID();
    const token = url.searchParams.get('token') ?? undefined;
    admit({ token: token && token.length <= 8192 ? token : undefined, sessionId }).then(
      (admission) => {
        if (!socket.readable || !socket.writable) {
          if (admission.ok) admission.done();
          socket.destroy();
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          if (admission.ok) return accept(ws, url, { sessionId, done: admission.done });
          reject('admission');
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

  const reject = (reason: string): void => {
    opts.metrics?.inputRejected.inc({ surface: 't2', reason });
  };

  function sendJson(ws: WebSocket, msg: unknown): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  }

  function frameError(ws: WebSocket, name: keyof typeof FRAME_ERRORS, message: string): void {
    reject(name.toLowerCase());
    sendJson(ws, { type: 'error', code: FRAME_ERRORS[name], name, message });
  }

  /** Serializes what a session emits to the socket it is attached to now (none while it waits). */
  function forward(session: Session, e: T2Emitted): void {
    const ws = session.ws;
    if (e.type === 'client.report') session.reported = true;
    if (!ws) return;
    switch (e.type) {
      case 'client.audio':
        if (ws.readyState === ws.OPEN) ws.send(e.pcm, { binary: true });
        break;
      case 'client.state':
        sendJson(ws, { type: 'state', value: e.value });
        break;
      case 'client.transcript':
        sendJson(ws, { type: 'transcript', speaker: e.speaker, text: e.text, final: e.final });
        break;
      case 'client.interrupted':
        sendJson(ws, { type: 'interrupted' });
        break;
      case 'client.warning':
        sendJson(ws, { type: 'warning', message: e.message, remainingMs: e.remainingMs });
        break;
      case 'client.report':
        // A close reason holds 123 bytes: the report travels as a message before the 1000 close.
        sendJson(ws, { type: 'report', report: e.report, productionId: e.productionId, audioUrl: e.audioUrl });
        break;
      case 'client.error':
        sendJson(ws, { type: 'error', code: e.code, name: e.name, message: e.message });
        break;
      case 'client.resume':
        sendJson(ws, { type: 'resume', state: e.state, transcript: e.transcript.map((t) => ({ speaker: t.speaker, text: t.text, final: t.final })), remainingMs: e.remainingMs });
        break;
      case 'client.close':
        if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(e.code, e.reason);
        break;
      case 'client.handover':
        break; // handled where the socket is routed (accept)
    }
  }

  function accept(ws: WebSocket, url: URL, admitted?: { sessionId: string; done: () => void }): void {
    const q = querySchema.safeParse(Object.fromEntries(url.searchParams));
    if (!q.success || live.size >= opts.maxSessions) admitted?.done();
    if (!q.success) {
      reject('bad_query');
      ws.close(CLOSE.AUTH_REQUIRED, 'AUTH_REQUIRED');
      return;
    }
    if (live.size >= opts.maxSessions) {
      reject('too_many_sessions');
      sendJson(ws, { type: 'error', code: CLOSE.TOO_MANY_SESSIONS, name: 'TOO_MANY_SESSIONS', message: 'Trop de sessions en cours, réessayez dans un instant.' });
      ws.close(CLOSE.TOO_MANY_SESSIONS, 'TOO_MANY_SESSIONS');
      return;
    }
    const sessionId = admitted?.sessionId ?? randomUUID();
    const systemId = `t2:${sessionId}`;
    const { logic, input, audio } = opts.wire({ sessionId, sujetId: q.data.sujet ?? '', mode: q.data.mode ?? opts.defaultMode, token: q.data.token, resume: q.data.resume === '1' });
    let actor: AnyActorRef;
    try {
      actor = opts.runtime.start('t2live', systemId, logic, input);
    } catch (err) {
      opts.logger.error({ err: (err as Error).message }, 't2 session did not start');
      admitted?.done();
      ws.close(CLOSE.INTERNAL, 'INTERNAL');
      return;
    }
    live.set(ws, systemId);
    let finished!: () => void;
    const own: Session = { systemId, sessionId, ref: actor, done: new Promise<void>((resolve) => (finished = resolve)), reported: false, audio, ws, openedAt: Date.now() };
    running.set(systemId, own);
    audio?.attachClient((pcm) => {
      const to = own.ws;
      if (to && to.readyState === to.OPEN) to.send(pcm, { binary: true });
    });
    /**
     * The session this socket's frames go to: its own, or, after a handover, the older session of
     * the same candidate it resumed (whose emitted events then come to this socket).
     */
    let bound: Session = own;
    const send = (e: T2Event): void => bound.ref.send(e);
    // Idle detection needs to know frames arrive, not each one: one activity event per second.
    let lastActivity = 0;
    const activity = (): void => {
      const now = Date.now();
      if (now - lastActivity < ACTIVITY_EVERY_MS) return;
      lastActivity = now;
      send({ type: 'client.activity' });
    };
    const candidateAudio = (pcm: Buffer, base64?: string): void => {
      activity();
      if (bound.audio) bound.audio.candidate(pcm, base64);
      else send({ type: 'client.audio', pcm });
    };

    const handover = (olderId: string): void => {
      const older = running.get(olderId);
      if (!older) {
        ws.close(CLOSE.INTERNAL, 'INTERNAL');
        return;
      }
      // The older session's previous socket (if the server still thought it open) is let go first,
      // so its close is not taken for this client leaving.
      const stale = older.ws;
      older.ws = ws;
      own.ws = undefined;
      bound = older;
      live.set(ws, older.systemId);
      if (stale && stale !== ws && (stale.readyState === stale.OPEN || stale.readyState === stale.CONNECTING)) stale.close(RESUMED_ELSEWHERE, 'RESUMED_ELSEWHERE');
      opts.logger.info({ session: older.sessionId }, 't2 session resumed by a reconnect');
      older.ref.send({ type: 'client.resumed' } satisfies T2Event);
    };

    actor.on('*', (raw: unknown) => {
      const e = raw as T2Emitted;
      if (e.type === 'client.handover') handover(e.systemId);
      else forward(own, e);
    });
    const ended = (): void => {
      opts.runtime.stop(systemId);
      running.delete(systemId);
      admitted?.done();
      finished();
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

    ws.on('message', (data, isBinary) => {
      const buf = toBuffer(data);
      if (isBinary) {
        if (buf.length > opts.maxFrameBytes) return frameError(ws, 'FRAME_TOO_LARGE', `trame audio de ${buf.length} octets, maximum ${opts.maxFrameBytes}`);
        if (buf.length === 0 || buf.length % 2 !== 0) return frameError(ws, 'BAD_FRAME', 'audio PCM16 : un nombre pair d’octets est attendu');
        candidateAudio(buf);
        return;
      }
      if (buf.length > opts.maxFrameBytes * 2) return frameError(ws, 'FRAME_TOO_LARGE', `message de ${buf.length} octets, maximum ${opts.maxFrameBytes * 2}`);
      let json: unknown;
      try {
        json = JSON.parse(buf.toString('utf8'));
      } catch {
        return frameError(ws, 'BAD_FRAME', 'message JSON invalide');
      }
      const frame = clientFrameSchema.safeParse(json);
      if (!frame.success) return frameError(ws, 'BAD_FRAME', `message hors protocole : ${frame.error.issues[0]?.message ?? 'invalide'}`);
      switch (frame.data.type) {
        case 'audio': {
          const pcm = Buffer.from(frame.data.data, 'base64');
          if (pcm.length > opts.maxFrameBytes) return frameError(ws, 'FRAME_TOO_LARGE', `trame audio de ${pcm.length} octets, maximum ${opts.maxFrameBytes}`);
          if (pcm.length === 0 || pcm.length % 2 !== 0) return frameError(ws, 'BAD_FRAME', 'audio PCM16 : un nombre pair d’octets est attendu');
          // Canonical base64 (padded, 4 characters per 3 bytes) is passed on as is: no re-encoding.
          candidateAudio(pcm, frame.data.data.length === Math.ceil(pcm.length / 3) * 4 ? frame.data.data : undefined);
          return;
        }
        case 'end':
          send({ type: 'client.end' });
          return;
        case 'text':
          send({ type: 'client.text', text: frame.data.text, atMs: Date.now() - bound.openedAt });
          return;
      }
    });
    ws.on('close', () => {
      live.delete(ws);
      // Only the socket the session is attached to speaks for its client (not one it let go).
      if (bound.ws !== ws) return;
      bound.ws = undefined;
      // The machine waits for a reconnect, or saves what exists, without a client.
      if (bound.ref.getSnapshot().status === 'active') send({ type: 'client.disconnected' });
    });
    ws.on('error', (err) => opts.logger.warn({ err: err.message, session: bound.sessionId }, 't2 socket error'));
  }

  return {
    sessions: () => live.size,
    async drain({ gradeBy, deadlineAt }) {
      draining = true;
      const sessions = [...running.values()];
      for (const s of sessions) s.ref.send({ type: 'server.shutdown' } satisfies T2Event);
      const all = Promise.all(sessions.map((s) => s.done));
      await until(all, gradeBy);
      // Still grading: save now without the report; the next start grades it.
      const stillRunning = (s: (typeof sessions)[number]): boolean => [...running.values()].includes(s);
      for (const s of sessions.filter(stillRunning)) s.ref.send({ type: 'server.deadline' } satisfies T2Event);
      await until(all, deadlineAt);
      const cut = sessions.filter(stillRunning).length;
      const reported = sessions.filter((s) => s.reported).length;
      return { drained: sessions.length - cut, reported, withoutReport: sessions.length - cut - reported, cut };
    },
    async close() {
      draining = true;
      opts.server.off('upgrade', onUpgrade);
      for (const ws of live.keys()) ws.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
