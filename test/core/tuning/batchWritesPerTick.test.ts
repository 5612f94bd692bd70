import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { batchTickWrites, rememberRawSocket } from '../../../core/tuning/batchWritesPerTick.js';
import { setTuningOff } from '../../../core/tuning/switches.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  setTuningOff([]);
  for (const c of cleanups.splice(0)) await c();
});

/** A real HTTP server and ws client; resolves with the server's side of the socket and its raw socket. */
async function pair(): Promise<{ ws: WebSocket; raw: Duplex; client: WebSocket; received: Array<string | number[]> }> {
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const accepted = new Promise<{ ws: WebSocket; raw: Duplex }>((resolve) => {
    server.on('upgrade', (req, socket, head) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        rememberRawSocket(ws, socket);
        resolve({ ws, raw: socket });
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const received: Array<string | number[]> = [];
  client.on('message', (data: Buffer, binary: boolean) => received.push(binary ? [...data] : data.toString()));
  await new Promise<void>((resolve) => client.once('open', () => resolve()));
  const { ws, raw } = await accepted;
  cleanups.push(async () => {
    client.terminate();
    await new Promise<void>((resolve) => wss.close(() => server.close(() => resolve())));
  });
  return { ws, raw, client, received };
}

describe('page socket writes batched per tick (core/tuning/batchWritesPerTick.ts)', () => {
  it('holds the frames of one tick and lets them go together at its end: same frames, same order', async () => {
    const { ws, raw, client, received } = await pair();
    const all = new Promise<void>((resolve) => client.on('message', () => received.length === 4 && resolve()));
    batchTickWrites(ws);
    ws.send(JSON.stringify({ type: 'transcript', text: 'Le club' }));
    batchTickWrites(ws); // a second call in the same tick corks nothing more
    ws.send(Buffer.from([1, 2, 3, 4]), { binary: true });
    ws.send(Buffer.alloc(300, 7), { binary: true }); // ws corks around header + payload itself
    ws.send(JSON.stringify({ type: 'state', value: 'listening' }));
    expect(raw.writableCorked).toBe(1);
    expect(raw.writableLength).toBeGreaterThan(300); // nothing written yet
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(raw.writableCorked).toBe(0);
    await all;
    expect(received).toEqual([JSON.stringify({ type: 'transcript', text: 'Le club' }), [1, 2, 3, 4], [...Buffer.alloc(300, 7)], JSON.stringify({ type: 'state', value: 'listening' })]);
  });

  it('does nothing for a socket it was not given, and a close in the same tick still goes out', async () => {
    const { ws, raw, client } = await pair();
    batchTickWrites(client); // a socket it was not given: no effect, no throw
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    batchTickWrites(ws);
    ws.send('last');
    ws.close(4000, 'bye');
    expect(await closed).toBe(4000);
    expect(raw.writableCorked).toBe(0);
  });
});

describe('TUNING_OFF=ws-writes-per-tick', () => {
  it('corks nothing: each frame is written when sent, and all arrive in order', async () => {
    setTuningOff(['ws-writes-per-tick']);
    const { ws, raw, client, received } = await pair();
    const all = new Promise<void>((resolve) => client.on('message', () => received.length === 3 && resolve()));
    batchTickWrites(ws);
    expect(raw.writableCorked).toBe(0);
    ws.send(JSON.stringify({ type: 'transcript', text: 'Le club' }));
    ws.send(Buffer.from([1, 2, 3, 4]), { binary: true });
    ws.send(JSON.stringify({ type: 'state', value: 'listening' }));
    expect(raw.writableCorked).toBe(0);
    expect(raw.writableLength).toBeLessThan(20); // handed to the kernel, not held for the tick's end
    await all;
    expect(received).toEqual([JSON.stringify({ type: 'transcript', text: 'Le club' }), [1, 2, 3, 4], JSON.stringify({ type: 'state', value: 'listening' })]);
  });
});
