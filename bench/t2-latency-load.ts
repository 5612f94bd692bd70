/**
 * Client and Gemini Live fake for bench/t2-latency.ts, in their own process: send and arrival
 * times of every chunk are taken here (one clock), while palabre's proxy runs alone in the parent.
 */
import WebSocket from 'ws';
import { startGeminiLiveFake, type FakeLiveConnection } from '../test/fakes/geminiLive.js';

type Times = Map<number, number>;
interface Go {
  type: 'go';
  wsUrl: string;
  token: string;
  chunks: number;
}
const PERIOD_MS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chunk(seq: number, bytes: number): Buffer {
  const b = Buffer.alloc(bytes);
  b.writeUInt32LE(seq, 0);
  for (let i = 4; i < bytes; i += 2) b.writeInt16LE(((i * 31 + seq) % 4000) - 2000, i);
  return b;
}

const phase: { up: Times } = { up: new Map() };
const conns: FakeLiveConnection[] = [];
const fake = await startGeminiLiveFake({ keepAudio: false, onConnection: (c) => conns.push(c), onAudio: (_c, pcm) => phase.up.set(pcm.readUInt32LE(0), performance.now()) });
process.send!({ type: 'fake', baseUrl: fake.baseUrl });

process.on('message', (raw) => {
  const go = raw as Go;
  if (go.type === 'go') void run(go);
});

async function stream(n: number, send: (b: Buffer) => void, conn: FakeLiveConnection, t: Record<string, Times>): Promise<void> {
  for (let seq = 0; seq < n; seq++) {
    t.upSent!.set(seq, performance.now());
    send(chunk(seq, 640));
    t.downSent!.set(seq, performance.now());
    conn.sendAudio(chunk(seq, 960), { partBytes: 960, partsPerMessage: 1 });
    await sleep(PERIOD_MS);
  }
  await sleep(300);
}

const times = (): Record<string, Times> => ({ upSent: new Map(), downSent: new Map(), upArrived: new Map(), downArrived: new Map() });
const lat = (sent: Times, arrived: Times): number[] => [...sent].flatMap(([seq, t]) => (arrived.has(seq) ? [arrived.get(seq)! - t] : []));

async function run(go: Go): Promise<void> {
  // Through the proxy.
  const proxied = times();
  phase.up = proxied.upArrived!;
  const ws = new WebSocket(`${go.wsUrl}/t2/live?token=${go.token}&sujet=club-de-sport`);
  await new Promise<void>((resolve) => {
    ws.on('message', (data, isBinary) => {
      if (isBinary) proxied.downArrived!.set((data as Buffer).readUInt32LE(0), performance.now());
      else if ((JSON.parse(String(data)) as { value?: string }).value === 'listening') resolve();
    });
  });
  await stream(go.chunks, (b) => ws.send(b), conns[0]!, proxied);
  ws.close();
  // Direct: the same chunks on a raw socket to the fake, as JSON + base64 like the SDK sends.
  const direct = times();
  phase.up = direct.upArrived!;
  const raw = new WebSocket(`${fake.baseUrl.replace('http', 'ws')}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=k`);
  await new Promise((r) => raw.once('open', r));
  raw.send(JSON.stringify({ setup: { model: 'models/m' } }));
  await new Promise((r) => raw.once('message', r));
  raw.on('message', (data) => {
    const part = (JSON.parse(String(data)) as { serverContent?: { modelTurn?: { parts: Array<{ inlineData: { data: string } }> } } }).serverContent?.modelTurn?.parts[0];
    if (part) direct.downArrived!.set(Buffer.from(part.inlineData.data, 'base64').readUInt32LE(0), performance.now());
  });
  await stream(go.chunks, (b) => raw.send(JSON.stringify({ realtimeInput: { audio: { data: b.toString('base64'), mimeType: 'audio/pcm;rate=16000' } } })), conns[conns.length - 1]!, direct);
  raw.close();
  process.send!({
    type: 'done',
    proxiedUp: lat(proxied.upSent!, proxied.upArrived!),
    proxiedDown: lat(proxied.downSent!, proxied.downArrived!),
    directUp: lat(direct.upSent!, direct.upArrived!),
    directDown: lat(direct.downSent!, direct.downArrived!),
  });
  // The fake stays up: the parent's next measurement connects to it, then kills this process.
}
