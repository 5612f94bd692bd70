import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import type { Logger } from './log.js';

/**
 * The embedded MQTT broker (aedes 1.x, MQTT 3.1.1 only) that `palabre serve` runs when MQTT_URL
 * names no external broker. The TCP server uses `noDelay`: without it, small retained messages
 * wait for Nagle's algorithm (~45 ms instead of ~2 ms).
 */
export interface EmbeddedBroker {
  /** mqtt://host:port as clients should dial it (the real port when 0 was asked). */
  url: string;
  port: number;
  connectedClients(): number;
  close(): Promise<void>;
}

/** Listening failed: `code` is the errno code (EADDRINUSE, EACCES…), `port` what was asked. */
export class ListenError extends Error {
  readonly code: string;
  readonly port: number;
  readonly host: string;
  constructor(code: string, host: string, port: number, cause: unknown) {
    super(`cannot listen on ${host}:${port} (${code})`, { cause });
    this.name = 'ListenError';
    this.code = code;
    this.host = host;
    this.port = port;
  }
}

/** Listens on host:port; rejects with ListenError instead of emitting 'error' later. */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(new ListenError(err.code ?? 'ERROR', host, port, err));
    };
    const onListening = () => {
      server.off('error', onError);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

export async function startEmbeddedBroker(opts: { host: string; port: number; logger: Logger }): Promise<EmbeddedBroker> {
  const aedes = await Aedes.createBroker();
  const sockets = new Set<Socket>();
  const server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });
  aedes.on('clientError', (client, err) => opts.logger.debug({ client: client.id, err: err.message }, 'mqtt client error'));
  aedes.on('connectionError', (_client, err) => opts.logger.debug({ err: err.message }, 'mqtt connection error'));

  let port: number;
  try {
    port = await listen(server, opts.host, opts.port);
  } catch (err) {
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    throw err;
  }
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  let closing: Promise<void> | undefined;
  return {
    url: `mqtt://${host}:${port}`,
    port,
    connectedClients: () => aedes.connectedClients,
    close() {
      // aedes.close() disconnects its clients; then stop accepting and drop any half-open socket.
      closing ??= new Promise<void>((resolve) => {
        aedes.close(() => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        });
      });
      return closing;
    },
  };
}
