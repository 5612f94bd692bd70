/**
 * Load generator for bench/t2-sessions.ts, in its own process so that the measured event loop is
 * palabre's alone: runs the Gemini Live fake and N candidate clients streaming at real-time rate.
 */
import WebSocket from 'ws';
import { fakeTone, startGeminiLiveFake } from '../test/fakes/geminiLive.js';

interface Go {
  type: 'go';
  wsUrl: string;
  tokens: string[];
  durationMs: number;
}

const REPLY = 'Le club est ouvert de six heures à vingt-trois heures en semaine, et de huit heures à vingt heures le week-end.';
const replyPcm = fakeTone(1000);
const fake = await startGeminiLiveFake({
  keepAudio: false,
  // Every 3 s of candidate audio, 1 s of reply in 40 ms parts, 3 per message.
  onConnection: (c) => c.autoReply({ afterAudioBytes: 96000, candidateText: 'Quels sont les horaires', replyText: REPLY, replyPcm, partBytes: 1920, partsPerMessage: 3, resumption: true, usage: { promptTokenCount: 10, responseTokenCount: 20 } }),
});
process.send!({ type: 'fake', baseUrl: fake.baseUrl });

process.on('message', (raw) => {
  const go = raw as Go;
  if (go.type !== 'go') return;
  void run(go);
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
  await Promise.all(
    go.tokens.map(
      (token, i) =>
        new Promise<void>((resolve) => {
          setTimeout(() => {
            const ws = new WebSocket(`${go.wsUrl}/t2/live?token=${token}&sujet=club-de-sport`);
            clients.push(ws);
            ws.on('message', (data, isBinary) => {
              if (isBinary) bytesDown += (data as Buffer).length;
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
  const cpu0 = process.cpuUsage();
  // One timer drives every client: a 20 ms tick sends one chunk per session (real-time rate).
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (const ws of clients) if (ws.readyState === ws.OPEN) {
        ws.send(chunk);
        sent++;
      }
      if (Date.now() - started >= go.durationMs) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
  });
  const cpu = process.cpuUsage(cpu0);
  const closedBeforeEnd = closedEarly;
  for (const ws of clients) ws.close();
  await new Promise((r) => setTimeout(r, 1000));
  process.send!({ type: 'done', ready, sent, bytesDown, finals, closedBeforeEnd, fakeConnections: fake.connections.length, cpuUs: cpu.user + cpu.system });
  await fake.close();
  process.exit(0);
}
