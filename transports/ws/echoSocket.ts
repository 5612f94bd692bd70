import { randomUUID } from 'node:crypto';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { z } from 'zod';
import type { AnyActorLogic, AnyActorRef } from 'xstate';
import type { Logger } from '../../core/log.js';
import type { Runtime } from '../../core/runtime.js';
import type { UpgradeHandler } from '../../core/surfaceContract.js';
import { selectEchoes, type EchoEvent, type EchoReply } from '../../machines/echo.js';

/**
 * The echo conversation's edge: one WebSocket per conversation on ECHO_PATH. It only parses,
 * validates and routes: a frame is `{"type":"say","text":"…"}` (zod); anything else gets
 * `{"type":"error","code":"bad_frame",…}` and changes nothing. Replies come from the chart.
 */
export const ECHO_PATH = '/echo/ws';

const MAX_FRAME_BYTES = 4096;

/** A client frame, its text at most `maxText` characters. */
function clientFrame(maxText: number) {
  return z.object({ type: z.literal('say'), text: z.string().trim().min(1, 'text is empty').max(maxText, `text longer than ${maxText} characters`) }).strict();
}

export interface EchoSocketDeps {
  runtime: Runtime;
  logger: Logger;
  /** Longest text of a `say` frame, in characters (at most 1000: a frame holds MAX_FRAME_BYTES). */
  maxText: number;
  /** The conversation's chart with its actors, for one client (actors/echo/echoWiring.ts). */
  wire(send: (reply: EchoReply) => void): AnyActorLogic;
}

export interface EchoSocket {
  upgrade: UpgradeHandler;
  /** Live conversations and the echoes they sent, read from the chart's selectors. */
  health(): { conversations: number; echoes: number };
  /** The drain: new upgrades are refused, every conversation is closed. */
  close(): Promise<void>;
}

/** The parsed frame, or the error the client gets. */
function parseEchoFrame(data: RawData, schema: ReturnType<typeof clientFrame>): { ok: true; event: EchoEvent } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(data.toString());
  } catch {
    return { ok: false, message: 'frame is not JSON: send {"type":"say","text":"…"}' };
  }
  const frame = schema.safeParse(json);
  if (!frame.success) return { ok: false, message: `bad frame: ${frame.error.issues.map((i) => `${i.path.join('.') || 'frame'}: ${i.message}`).join('; ')}. Send {"type":"say","text":"…"}` };
  return { ok: true, event: { type: 'echo.say', text: frame.data.text } };
}

export function echoSocket(deps: EchoSocketDeps): EchoSocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const schema = clientFrame(deps.maxText);
  const live = new Map<WebSocket, AnyActorRef>();
  let closing = false;
  const send = (ws: WebSocket, reply: EchoReply | { type: 'error'; code: 'bad_frame'; message: string }): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
  };

  const open = (ws: WebSocket): void => {
    const systemId = `echo:${randomUUID()}`;
    const actor = deps.runtime.start('echo', systemId, deps.wire((reply) => send(ws, reply)));
    live.set(ws, actor);
    ws.on('message', (data) => {
      const parsed = parseEchoFrame(data, schema);
      if (parsed.ok) actor.send(parsed.event);
      else send(ws, { type: 'error', code: 'bad_frame', message: parsed.message });
    });
    ws.on('close', () => {
      live.delete(ws);
      actor.send({ type: 'echo.close' });
      deps.runtime.stop(systemId);
    });
  };

  return {
    upgrade(req, socket, head) {
      if (closing) {
        socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, open);
    },
    health() {
      let echoes = 0;
      for (const actor of live.values()) echoes += selectEchoes(actor.getSnapshot());
      return { conversations: live.size, echoes };
    },
    async close() {
      closing = true;
      const closed = [...live.keys()].map((ws) => new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close(1001, 'server shutting down');
      }));
      await Promise.race([Promise.all(closed), new Promise((r) => setTimeout(r, 1000).unref())]);
      for (const ws of live.keys()) ws.terminate();
      wss.close();
      deps.logger.info({ surface: 'echo' }, 'echo conversations closed');
    },
  };
}
