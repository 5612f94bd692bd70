import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UpgradeHandler } from '../surfaceContract.js';

/** What a WebSocket edge listens on: a server's `upgrade` event, or one declared path's channel. */
export interface UpgradeSource {
  on(event: 'upgrade', listener: UpgradeHandler): unknown;
  off(event: 'upgrade', listener: UpgradeHandler): unknown;
}

/**
 * An edge written against a server's `upgrade` event, turned into the handler a surface declares
 * for one path (`sockets: { '/t2/live': channel.handler }`): core calls it for that path only.
 */
export function upgradeChannel(): { source: UpgradeSource; handler: UpgradeHandler } {
  const bus = new EventEmitter();
  return {
    source: bus as UpgradeSource,
    handler: (req, socket, head) => {
      if (bus.listenerCount('upgrade') === 0) refuse(socket, 503);
      else bus.emit('upgrade', req, socket, head);
    },
  };
}

function refuse(socket: Duplex, status: number): void {
  socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Service Unavailable'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * The one `upgrade` listener of the server: each request goes to the surface that declared its
 * path; any other path is answered 404 and closed.
 */
export function routeUpgrades(server: Server, sockets: ReadonlyMap<string, UpgradeHandler>): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const handler = sockets.get(path);
    if (handler) handler(req, socket, head);
    else refuse(socket, 404);
  });
}
