import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { z } from 'zod';
import type { Logger } from '../../core/log.js';
import type { UpgradeSource } from '../../core/http/upgrades.js';

/**
 * WebSocket `/inspect/ws`: streams the inspector hub's redacted records to admin pages.
 *
 * server → client: `{"type":"conversations","conversations":[…]}` (on connect and when the list
 * changes: live ones, then ended ones kept INSPECT_RETAIN_S with `endedAt`), `{"type":"record","record":{…}}`, `{"type":"history","systemId":…,"records":[…]}`,
 * `{"type":"error","message":…}`.
 * client → server: `{"type":"history","systemId":"…"}` only. Anything else gets an error message.
 */

export interface InspectRecord {
  seq: number;
  at: number;
  /** systemId of the conversation (the top actor under the root). */
  conversation: string;
  kind: string;
  /** Which actor inside the conversation (the conversation itself, or an invoked child). */
  actor: string;
  type: 'event' | 'snapshot' | 'actor';
  eventType?: string;
  event?: unknown;
  /** State value of a machine snapshot. */
  value?: unknown;
  status?: string;
  context?: unknown;
}

export interface ConversationView {
  systemId: string;
  kind: string;
  /** Readable name: `t2live · candidate ab12 · Inscription club de sport`. */
  label: string;
  startedAt: number;
  /** When it ended (ms epoch), or null while it lives. */
  endedAt: number | null;
  value: unknown;
  status: string;
  context: unknown;
}

/** What the socket reads from the inspector hub (actors/statecharts/inspectorHub.ts). */
interface InspectFeed {
  conversations(): ConversationView[];
  recent(systemId: string): InspectRecord[];
  subscribe(listener: (record: InspectRecord) => void): () => void;
}

export const INSPECT_WS_PATH = '/inspect/ws';
const MAX_CLIENT_FRAME = 4 * 1024;
const LIST_INTERVAL_MS = 500;

const clientMessage = z.object({ type: z.literal('history'), systemId: z.string().min(1).max(200) }).strict();

export interface InspectSocketDeps {
  server: UpgradeSource;
  hub: InspectFeed;
  logger: Logger;
  /** True when the upgrade request carries an admin session. */
  isAdmin(req: IncomingMessage): Promise<boolean>;
}

function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return true; // non-browser clients send none; the admin cookie is still required
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function reject(socket: Duplex, status: number, text: string): void {
  socket.write(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n${text}\n`);
  socket.destroy();
}

export function attachInspectSocket({ server, hub, logger, isAdmin }: InspectSocketDeps): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== INSPECT_WS_PATH) return; // another surface's socket
    // The admin session is a store read (async: the store may be Postgres).
    void isAdmin(req).then((admin) => {
      if (!admin) return reject(socket, 401, 'Unauthorized');
      // Cookies ride along on cross-site WebSocket handshakes: refuse foreign origins.
      if (!sameOrigin(req)) return reject(socket, 403, 'Forbidden');
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    }, (err: unknown) => {
      logger.error({ err: (err as Error).message }, 'inspect socket: admin check failed');
      reject(socket, 503, 'Service Unavailable');
    });
  };
  server.on('upgrade', onUpgrade);

  const send = (ws: WebSocket, message: unknown): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };

  let lastList = '';
  const listTimer = setInterval(() => {
    if (wss.clients.size === 0) return;
    const conversations = hub.conversations();
    // A new, ended, renamed (t2live learns its subject) or expired conversation changes the list.
    const text = JSON.stringify(conversations.map((c) => [c.systemId, c.label, c.endedAt]));
    if (text === lastList) return;
    lastList = text;
    for (const ws of wss.clients) send(ws, { type: 'conversations', conversations });
  }, LIST_INTERVAL_MS);
  listTimer.unref();

  wss.on('connection', (ws: WebSocket) => {
    logger.info({ event: 'inspect_connected' }, 'inspector connected');
    send(ws, { type: 'conversations', conversations: hub.conversations() });
    // Each page is a listener of its own: the hub inspects only while a page is open.
    const off = hub.subscribe((record: InspectRecord) => send(ws, { type: 'record', record }));
    ws.on('close', off);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      let parsed: z.infer<typeof clientMessage> | undefined;
      if (!isBinary) {
        try {
          const result = clientMessage.safeParse(JSON.parse(data.toString()));
          if (result.success) parsed = result.data;
        } catch {
          parsed = undefined;
        }
      }
      if (!parsed) {
        send(ws, { type: 'error', message: 'Unknown message: send {"type":"history","systemId":"…"}' });
        return;
      }
      send(ws, { type: 'history', systemId: parsed.systemId, records: hub.recent(parsed.systemId) });
    });
    ws.on('error', (err) => logger.warn({ err }, 'inspector socket error'));
  });

  return {
    async close() {
      clearInterval(listTimer);
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
