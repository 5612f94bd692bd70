/**
 * The irreducible T2 proxy, the baseline of bench/t2-sessions.ts and bench/t2-latency.ts:
 * what any correct Gemini Live relay must do and nothing more.
 *
 *   page ─binary PCM16 16 kHz─▶ check (even length, ≤ 1 s) ─▶ {realtimeInput:{audio:{data:<base64>}}} ─▶ Gemini
 *   Gemini ─{serverContent:{modelTurn:{parts:[{inlineData:{data:<base64>}}]}}}─▶ one binary frame per part ─▶ page
 *
 * No statechart, no recording, no transcript, no store, no auth. It sends the page the one control
 * message the load generator waits for ({type:'state',value:'listening'}) once Gemini's setup completes.
 * Raw `ws` both ways (the SDK's Live session is itself a thin `ws` wrapper that JSON.stringifies
 * the same message).
 */
import { createServer, type Server } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';

const MAX_CHUNK = 32000; // 1 s of 16 kHz PCM16

export interface BaselineProxy {
  wsUrl: string;
  close(): Promise<void>;
}

interface LiveMessage {
  setupComplete?: unknown;
  serverContent?: { modelTurn?: { parts?: Array<{ inlineData?: { data?: string } }> } };
}

export async function startBaselineProxy(geminiBaseUrl: string): Promise<BaselineProxy> {
  const upstreamUrl = `${geminiBaseUrl.replace(/^http/, 'ws')}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=bench`;
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/t2/live', maxPayload: 64 * 1024 });
  wss.on('connection', (page) => {
    const gemini = new WebSocket(upstreamUrl);
    let live = false;
    gemini.on('open', () => gemini.send(JSON.stringify({ setup: { model: 'models/gemini-live', generationConfig: { responseModalities: ['AUDIO'] } } })));
    gemini.on('message', (data) => {
      const msg = JSON.parse(String(data)) as LiveMessage;
      if (msg.setupComplete !== undefined) {
        live = true;
        page.send(JSON.stringify({ type: 'state', value: 'listening' }));
        return;
      }
      const parts = msg.serverContent?.modelTurn?.parts;
      if (!parts) return;
      for (const p of parts) {
        const b64 = p.inlineData?.data;
        if (b64 && page.readyState === page.OPEN) page.send(Buffer.from(b64, 'base64'), { binary: true });
      }
    });
    gemini.on('close', () => page.close());
    gemini.on('error', () => page.close());
    page.on('message', (data, isBinary) => {
      if (!isBinary || !live) return;
      const pcm = data as Buffer;
      if (pcm.length === 0 || pcm.length % 2 !== 0 || pcm.length > MAX_CHUNK) {
        page.close(1007, 'PCM16 expected');
        return;
      }
      if (gemini.readyState === gemini.OPEN) gemini.send(JSON.stringify({ realtimeInput: { audio: { data: pcm.toString('base64'), mimeType: 'audio/pcm;rate=16000' } } }));
    });
    page.on('close', () => gemini.close());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  const port = typeof a === 'object' && a ? a.port : 0;
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
