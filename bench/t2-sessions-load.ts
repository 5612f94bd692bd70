/**
 * Load generator for bench/t2-sessions.ts, in its own process so that the measured event loop is
 * palabre's alone: runs the Gemini Live fake and N candidate clients streaming at real-time rate.
 * With `T2_LATENCY_DUMP=FILE` in the environment, every measured up chunk's send time and latency
 * are written there (bench/support/t2-latency-ticks.ts says which ticks hold the p99's chunks).
 */
import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { fakeTone, startGeminiLiveFake } from '../test/fakes/geminiLive.js';

interface Go {
  type: 'go';
  wsUrl: string;
  tokens: string[];
  durationMs: number;
  /** Session i starts streaming i × staggerMs / N ms after the first (on the 20 ms tick). */
  staggerMs: number;
  /**
   * Streaming before the measured `durationMs` starts (`measuring` is sent then): the chunks,
   * replies and latencies of the warm-up are not counted.
   */
  warmupMs: number;
}

const REPLY = 'Le club est ouvert de six heures à vingt-trois heures en semaine, et de huit heures à vingt heures le week-end.';
const replyPcm = fakeTone(1000);
const REPLY_AFTER = 96000;
/**
 * Chunk latency, one clock (both ends in this process, so no clock skew): every chunk carries its sequence number (bytes 0–3) and its
 * client (bytes 4–5). Up = client send → the fake decodes it; down = the fake starts a reply →
 * that client receives its first binary frame.
 */
const sentAt: number[] = [];
/** The first chunk and the first reply start (performance.now()) the measured window counts. */
let measureFromSeq = 0;
let measureFromMs = 0;
const upMs: number[] = [];
/** When each measured up chunk was sent (for T2_LATENCY_DUMP). */
const upAt: number[] = [];
const downMs: number[] = [];
const replyAt = new Map<number, number>();
const turnBytes = new Map<object, number>();
const fake = await startGeminiLiveFake({
  keepAudio: false,
  onAudio: (conn, pcm) => {
    const now = performance.now();
    const at = sentAt[pcm.readUInt32LE(0)];
    const seq = pcm.readUInt32LE(0);
    if (at !== undefined && seq >= measureFromSeq) {
      upMs.push(now - at);
      upAt.push(at);
    }
    // Mirrors the fake's own count: the reply goes out right after this call, in the same tick.
    const n = (turnBytes.get(conn) ?? 0) + pcm.length;
    if (n >= REPLY_AFTER) {
      turnBytes.set(conn, 0);
      replyAt.set(pcm.readUInt16LE(4), now);
    } else turnBytes.set(conn, n);
  },
  // Every 3 s of candidate audio, 1 s of reply in 40 ms parts, 3 per message.
  onConnection: (c) => c.autoReply({ afterAudioBytes: REPLY_AFTER, candidateText: 'Quels sont les horaires', replyText: REPLY, replyPcm, partBytes: 1920, partsPerMessage: 3, resumption: true, usage: { promptTokenCount: 10, responseTokenCount: 20 } }),
});
process.send!({ type: 'fake', baseUrl: fake.baseUrl });

/** Resolved when the bench has taken its measures at the window's end (`probed`). */
let probed: () => void = () => undefined;
const probedMsg = new Promise<void>((resolve) => (probed = resolve));
process.on('message', (raw) => {
  const msg = raw as Go | { type: 'probed' };
  if (msg.type === 'probed') probed();
  if (msg.type === 'go') void run(msg);
});

async function run(go: Go): Promise<void> {
  const chunk = Buffer.alloc(640); // 20 ms at 16 kHz
  for (let i = 0; i < 320; i++) chunk.writeInt16LE(Math.round(Math.sin(i / 5) * 3000), i * 2);
  let ready = 0;
  let bytesDown = 0;
  let sent = 0;
  let finals = 0;
  let closedEarly = 0;
  const clients: WebSocket[] = [];
  const indexOf = new Map<WebSocket, number>();
  await Promise.all(
    go.tokens.map(
      (token, i) =>
        new Promise<void>((resolve) => {
          setTimeout(() => {
            const ws = new WebSocket(`${go.wsUrl}/t2/live?token=${token}&sujet=club-de-sport`);
            clients.push(ws);
            indexOf.set(ws, i);
            ws.on('message', (data, isBinary) => {
              if (isBinary) {
                bytesDown += (data as Buffer).length;
                const at = replyAt.get(i);
                if (at !== undefined) {
                  if (at >= measureFromMs) downMs.push(performance.now() - at);
                  replyAt.delete(i);
                }
              }
              else {
                const m = JSON.parse(String(data)) as { type: string; value?: string; speaker?: string; final?: boolean };
                if (m.type === 'state' && m.value === 'listening' && !(ws as WebSocket & { ready?: boolean }).ready) {
                  (ws as WebSocket & { ready?: boolean }).ready = true;
                  ready++;
                  resolve();
                }
                if (m.type === 'transcript' && m.speaker === 'interlocutor' && m.final) finals++;
              }
            });
            ws.on('close', () => {
              closedEarly++;
              resolve();
            });
          }, i * 10); // staggered connects
        }),
    ),
  );
  process.send!({ type: 'streaming', ready });
  const started = Date.now();
  let cpu0 = process.cpuUsage();
  let measuring = go.warmupMs <= 0;
  if (!measuring) {
    // No reply is measured before the window: replyAt only counts replies started in it.
    measureFromSeq = Number.MAX_SAFE_INTEGER;
    measureFromMs = Number.POSITIVE_INFINITY;
  }
  // One timer drives every client: a 20 ms tick sends one chunk per session (real-time rate).
  // With a stagger, a session sends from its first tick on, so its replies (every 3 s of its
  // audio) fall on other ticks than the others'.
  const firstTick = clients.map((ws) => Math.floor((indexOf.get(ws)! * go.staggerMs) / go.tokens.length / 20));
  let tick = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (!measuring && Date.now() - started >= go.warmupMs) {
        measuring = true;
        measureFromSeq = sent;
        measureFromMs = now;
        cpu0 = process.cpuUsage();
        process.send!({ type: 'measuring' });
      }
      for (let c = 0; c < clients.length; c++) {
        const ws = clients[c]!;
        if (ws.readyState !== ws.OPEN || tick < firstTick[c]!) continue;
        const tagged = Buffer.from(chunk);
        tagged.writeUInt32LE(sent, 0);
        tagged.writeUInt16LE(indexOf.get(ws)!, 4);
        sentAt[sent] = now;
        ws.send(tagged);
        sent++;
      }
      tick++;
      if (measuring && Date.now() - started >= go.warmupMs + go.durationMs) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
  });
  const cpu = process.cpuUsage(cpu0);
  const closedBeforeEnd = closedEarly;
  // The window's end: the bench stops its measures and probes memory, the sessions still open.
  process.send!({ type: 'window-end' });
  await probedMsg;
  for (const ws of clients) ws.close();
  await new Promise((r) => setTimeout(r, 1000));
  const p = (xs: number[], q: number): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((q / 100) * s.length))]! * 100) / 100 : -1;
  };
  // Where the tail is (bench/support/t2-latency-ticks.ts reads it): each up chunk's send time
  // (ms from the first measured chunk's) and latency.
  if (process.env.T2_LATENCY_DUMP) {
    const t0 = upAt.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
    writeFileSync(process.env.T2_LATENCY_DUMP, JSON.stringify({ upSentAtMs: upAt.map((t) => Math.round((t - t0) * 100) / 100), upMs }));
  }
  const latency = { upP50Ms: p(upMs, 50), upP99Ms: p(upMs, 99), upSamples: upMs.length, downP50Ms: p(downMs, 50), downP99Ms: p(downMs, 99), downSamples: downMs.length };
  // `sent`: the measured window's chunks; `sentTotal` with the warm-up's.
  process.send!({ type: 'done', ready, sent: sent - Math.min(sent, measureFromSeq), sentTotal: sent, bytesDown, finals, closedBeforeEnd, fakeConnections: fake.connections.length, cpuUs: cpu.user + cpu.system, latency });
  await fake.close();
  process.exit(0);
}
