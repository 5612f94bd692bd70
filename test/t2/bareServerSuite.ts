import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

interface BareServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** A bare HTTP server on a free port that answers 404: for tests that attach the T2 socket edge alone. */
async function bareServer(): Promise<BareServer> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The bare server for the whole test file: listening before the first test, closed after the
 * last; read `server` and `port` inside tests. Kept out of support.ts, which benchmarks import
 * outside vitest.
 */
export function useBareServer(): { readonly server: Server; readonly port: number } {
  let running: BareServer | undefined;
  beforeAll(async () => {
    running = await bareServer();
  });
  afterAll(() => running?.close());
  const current = (): BareServer => {
    if (!running) throw new Error('the bare server is read before beforeAll ran');
    return running;
  };
  return {
    get server() {
      return current().server;
    },
    get port() {
      return current().port;
    },
  };
}
