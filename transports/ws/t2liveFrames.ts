import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import type { T2Emitted } from '../../machines/t2live.js';

/**
 * The T2 live socket's wire format (docs/t2-live.md), kept apart from the session routing of
 * transports/ws/t2liveSocket.ts: the query of the upgrade, the client frames in, the chart's emitted
 * `client.*` events out.
 *
 * client → server: binary = PCM16 LE mono 16 kHz; JSON {type:'audio',data:<base64>} |
 *   {type:'end'} | {type:'text',text}.
 * server → client: binary = PCM16 LE mono 24 kHz; JSON {type:'state'|'transcript'|'warning'|
 *   'ended'|'report'|'error', …}, then the close (1000 after the report; 4001/4003/4004/44xx/1011 otherwise).
 */

/**
 * The socket's subprotocol. A page sends its JWT as a second one, `palabre.bearer.<JWT>`: the
 * `Sec-WebSocket-Protocol` header is not part of the request line that proxies (HAProxy's
 * `option httplog`, nginx's `$request`) and access logs write, where `?token=` would land. The
 * server answers with this name only, never echoing the bearer one. `?token=` still works, for
 * clients written against the query form; the logs palabre ships redact it.
 */
export const T2_PROTOCOL = 'palabre.t2';
export const BEARER_PROTOCOL_PREFIX = 'palabre.bearer.';

/** A JWT as a subprotocol token (RFC 6455: an HTTP token; a JWT's base64url parts and dots are). */
const bearerSchema = z.string().min(1).max(8192).regex(/^[A-Za-z0-9._~-]+$/);

/**
 * The candidate's JWT on an upgrade request: from the bearer subprotocol if the client offered
 * one, else from `?token=`. A malformed bearer protocol counts as no token (the chart then
 * answers 4001), never falls back to the query.
 */
export function upgradeToken(protocolHeader: string | undefined, url: URL): { token: string | undefined; via: 'protocol' | 'query' | 'none' } {
  const offered = (protocolHeader ?? '').split(',').map((p) => p.trim()).filter((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  if (offered.length > 0) {
    const parsed = bearerSchema.safeParse(offered[0]!.slice(BEARER_PROTOCOL_PREFIX.length));
    return { token: parsed.success ? parsed.data : undefined, via: 'protocol' };
  }
  const query = url.searchParams.get('token');
  if (query !== null && query.length > 0 && query.length <= 8192) return { token: query, via: 'query' };
  return { token: undefined, via: 'none' };
}

/** The subprotocol the server selects: palabre's, when offered (a browser that offered some needs one back). */
export function selectProtocol(protocols: Set<string>): string | false {
  return protocols.has(T2_PROTOCOL) ? T2_PROTOCOL : false;
}

/** Text-mode messages longer than this are refused (a spoken question is far shorter). */
const MAX_TEXT_CHARS = 2000;

export const FRAME_ERRORS = {
  BAD_FRAME: 4400,
  FRAME_TOO_LARGE: 4413,
} as const;

export const querySchema = z.object({
  token: z.string().max(8192).optional(),
  sujet: z.string().max(200).optional(),
  mode: z.enum(['audio', 'text']).optional(),
  /** A reconnect: resume this candidate's session, never start a new one (close 4410 if none). */
  resume: z.enum(['1']).optional(),
  /** The candidate confirmed ending their session live in another tab and starting here. */
  takeover: z.enum(['1']).optional(),
});

const clientFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('audio'), data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64') }).strict(),
  z.object({ type: z.literal('end') }).strict(),
  z.object({ type: z.literal('text'), text: z.string().trim().min(1).max(MAX_TEXT_CHARS) }).strict(),
]);

/** One client frame, validated: what the session gets, or why it was refused. */
export type ClientFrame =
  | { kind: 'audio'; pcm: Buffer; base64?: string }
  | { kind: 'end' }
  | { kind: 'text'; text: string }
  | { kind: 'refused'; name: keyof typeof FRAME_ERRORS; message: string };

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** PCM16 chunks: at most `maxFrameBytes`, a non-zero even number of bytes. */
function checkPcm(pcm: Buffer, maxFrameBytes: number): ClientFrame | undefined {
  if (pcm.length > maxFrameBytes) return { kind: 'refused', name: 'FRAME_TOO_LARGE', message: `trame audio de ${pcm.length} octets, maximum ${maxFrameBytes}` };
  if (pcm.length === 0 || pcm.length % 2 !== 0) return { kind: 'refused', name: 'BAD_FRAME', message: 'audio PCM16 : un nombre pair d’octets est attendu' };
  return undefined;
}

export function parseClientFrame(data: RawData, isBinary: boolean, maxFrameBytes: number): ClientFrame {
  const buf = toBuffer(data);
  if (isBinary) return checkPcm(buf, maxFrameBytes) ?? { kind: 'audio', pcm: buf };
  if (buf.length > maxFrameBytes * 2) return { kind: 'refused', name: 'FRAME_TOO_LARGE', message: `message de ${buf.length} octets, maximum ${maxFrameBytes * 2}` };
  let json: unknown;
  try {
    json = JSON.parse(buf.toString('utf8'));
  } catch {
    return { kind: 'refused', name: 'BAD_FRAME', message: 'message JSON invalide' };
  }
  const frame = clientFrameSchema.safeParse(json);
  if (!frame.success) return { kind: 'refused', name: 'BAD_FRAME', message: `message hors protocole : ${frame.error.issues[0]?.message ?? 'invalide'}` };
  switch (frame.data.type) {
    case 'audio': {
      const pcm = Buffer.from(frame.data.data, 'base64');
      // Canonical base64 (padded, 4 characters per 3 bytes) is passed on as is: no re-encoding.
      return checkPcm(pcm, maxFrameBytes) ?? { kind: 'audio', pcm, ...(frame.data.data.length === Math.ceil(pcm.length / 3) * 4 ? { base64: frame.data.data } : {}) };
    }
    case 'end':
      return { kind: 'end' };
    case 'text':
      return { kind: 'text', text: frame.data.text };
  }
}

export function sendJson(ws: WebSocket, msg: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
}

/** Serializes one event the session emitted to the socket it is attached to. */
export function sendEmitted(ws: WebSocket, e: T2Emitted): void {
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
    case 'client.ended':
      sendJson(ws, { type: 'ended', reason: e.reason });
      break;
    case 'client.handover':
      break; // handled where the socket is routed (t2liveSocket.ts)
  }
}
