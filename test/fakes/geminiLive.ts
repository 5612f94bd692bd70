import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';

/**
 * A wire-level fake of the Gemini Live API (BidiGenerateContent over WebSocket), for the real
 * `@google/genai` SDK pointed at it with `httpOptions: { baseUrl: fake.baseUrl }`.
 *
 * It records the setup frame and every client message, answers `setupComplete`, decodes
 * `realtimeInput` audio, and lets each test script the server side: PCM in several
 * `modelTurn.parts[].inlineData` per message, input/output transcriptions, `turnComplete`,
 * `interrupted`, `goAway`, `sessionResumptionUpdate`, `usageMetadata`, closes and delays. A setup
 * resuming from a handle (`sessionResumption.handle`) must name one the fake issued, or is refused.
 *
 *   const fake = await startGeminiLiveFake({ onConnection: (c) => c.autoReply({ … }) });
 *   const ai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: fake.baseUrl, apiVersion: 'v1beta' } });
 */

const LIVE_PATH_RE = /\/ws\/google\.ai\.generativelanguage\.(v1\w*)\.GenerativeService\.BidiGenerateContent$/;
/** The Vertex AI Live route (the SDK with `vertexai: true`); the key comes in `x-goog-api-key`. */
const VERTEX_LIVE_PATH_RE = /\/ws\/google\.cloud\.aiplatform\.(v1\w*)\.LlmBidiService\/BidiGenerateContent$/;

type Json = Record<string, unknown>;

interface AutoReply {
  /** Candidate audio bytes (16 kHz PCM16) received before the fake answers; each turn resets it. */
  afterAudioBytes?: number;
  /** Answer when the client sends `audioStreamEnd` (or a clientContent turn) too. */
  onStreamEnd?: boolean;
  /** What the fake "heard": sent as inputTranscription before the answer. */
  candidateText?: string | ((turn: number) => string);
  /** The interlocutor's words: outputTranscription, in pieces. */
  replyText: string | ((turn: number) => string);
  /** Reply audio (24 kHz PCM16); default 200 ms of a 220 Hz tone per turn. */
  replyPcm?: Buffer;
  /** Bytes of PCM per inlineData part, and parts per message. */
  partBytes?: number;
  partsPerMessage?: number;
  /** Send a sessionResumptionUpdate after each turnComplete. */
  resumption?: boolean;
  /** Tokens reported in usageMetadata after each turn. */
  usage?: { promptTokenCount: number; responseTokenCount: number };
}

export interface FakeLiveConnection {
  readonly index: number;
  readonly apiVersion: string;
  /** The `key` query parameter the SDK sent. */
  readonly key: string | null;
  /** The `setup` object of the first client message (undefined until it arrives). */
  setup: Json | undefined;
  /** The resumption handle this connection's setup resumed from (one the fake issued), if any. */
  resumedFrom: string | undefined;
  /** Every parsed client message in order (setup included). */
  readonly messages: Json[];
  /** The same messages as the frames' text, byte for byte (what the SDK wrote on the wire). */
  readonly rawMessages: string[];
  /** Every realtimeInput audio chunk, decoded, in order. */
  readonly audioChunks: Buffer[];
  readonly audioMimeTypes: string[];
  audioStreamEnded: boolean;
  closed: boolean;
  send(msg: Json): void;
  sendAudio(pcm: Buffer, opts?: { partBytes?: number; partsPerMessage?: number }): void;
  inputTranscription(text: string): void;
  outputTranscription(text: string): void;
  turnComplete(): void;
  interrupted(): void;
  goAway(timeLeft?: string): void;
  resumptionUpdate(newHandle: string, resumable?: boolean): void;
  usage(prompt: number, response: number): void;
  close(code?: number, reason?: string): void;
  /** Scripted answering: see AutoReply. */
  autoReply(script: AutoReply): void;
  /** Echo each realtimeInput chunk back as model audio at once (latency benchmarks). */
  echo(): void;
  audioBytes(): number;
}

export interface GeminiLiveFakeOptions {
  /** Called once per socket after it opened (before setup). */
  onConnection?: (conn: FakeLiveConnection) => void;
  /** Delay before setupComplete, ms. */
  setupDelayMs?: number;
  /** Close instead of answering setup (e.g. 1008 bad model, 1011 overload). */
  rejectSetup?: { code: number; reason: string };
  /** Called on each decoded realtimeInput audio chunk (benchmarks timestamp arrivals here). */
  onAudio?: (conn: FakeLiveConnection, pcm: Buffer) => void;
  /** Keep decoded audio in `audioChunks` (default true; benchmarks turn it off to save memory). */
  keepAudio?: boolean;
}

/**
 * Handles the fake issued (`sessionResumptionUpdate`), across its connections: as the Live API
 * does, a setup resuming from a handle it never gave out is refused (close 1008).
 */
type IssuedHandles = Set<string>;

export interface GeminiLiveFake {
  readonly baseUrl: string;
  readonly connections: FakeLiveConnection[];
  /** Resolves when `n` connections have received their setup. */
  waitForSetups(n: number, timeoutMs?: number): Promise<FakeLiveConnection[]>;
  close(): Promise<void>;
}

function tone(ms: number, hz = 220, rate = 24000): Buffer {
  const n = Math.round((ms / 1000) * rate);
  const buf = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * hz * i) / rate) * 8000), i * 2);
  return buf;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

class Connection implements FakeLiveConnection {
  setup: Json | undefined;
  resumedFrom: string | undefined;
  readonly messages: Json[] = [];
  readonly rawMessages: string[] = [];
  readonly audioChunks: Buffer[] = [];
  readonly audioMimeTypes: string[] = [];
  audioStreamEnded = false;
  closed = false;
  private script: AutoReply | undefined;
  private echoing = false;
  private turnBytes = 0;
  private turn = 0;
  private handleSeq = 0;

  constructor(
    readonly index: number,
    readonly apiVersion: string,
    readonly key: string | null,
    private readonly ws: WebSocket,
    private readonly opts: GeminiLiveFakeOptions,
    private readonly onSetup: () => void,
    private readonly issued: IssuedHandles,
  ) {
    ws.on('message', (data, isBinary) => this.receive(toBuffer(data), isBinary));
    ws.on('close', () => {
      this.closed = true;
    });
  }

  private receive(data: Buffer, isBinary: boolean): void {
    let msg: Json;
    const text = data.toString('utf8');
    try {
      msg = JSON.parse(text) as Json;
    } catch {
      this.ws.close(1007, `not JSON (${isBinary ? 'binary' : 'text'} frame)`);
      return;
    }
    if (this.opts.keepAudio !== false || !msg.realtimeInput) {
      this.messages.push(msg);
      this.rawMessages.push(text);
    }
    if (msg.setup && !this.setup) {
      this.setup = msg.setup as Json;
      const handle = (this.setup.sessionResumption as { handle?: string } | undefined)?.handle;
      if (handle !== undefined) {
        if (!this.issued.has(handle)) {
          this.ws.close(1008, 'unknown session resumption handle');
          return;
        }
        this.resumedFrom = handle;
      }
      if (this.opts.rejectSetup) {
        this.ws.close(this.opts.rejectSetup.code, this.opts.rejectSetup.reason);
        return;
      }
      const done = (): void => {
        this.send({ setupComplete: {} });
        this.onSetup();
      };
      if (this.opts.setupDelayMs) setTimeout(done, this.opts.setupDelayMs);
      else done();
      return;
    }
    const rt = msg.realtimeInput as Json | undefined;
    if (rt) {
      const audio = rt.audio as { data?: string; mimeType?: string } | undefined;
      if (audio?.data) {
        const pcm = Buffer.from(audio.data, 'base64');
        if (this.opts.keepAudio !== false) {
          this.audioChunks.push(pcm);
          this.audioMimeTypes.push(audio.mimeType ?? '');
        }
        this.opts.onAudio?.(this, pcm);
        this.turnBytes += pcm.length;
        if (this.echoing) this.send({ serverContent: { modelTurn: { parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: audio.data } }] } } });
        if (this.script?.afterAudioBytes !== undefined && this.turnBytes >= this.script.afterAudioBytes) this.answer();
      }
      if (rt.audioStreamEnd) {
        this.audioStreamEnded = true;
        if (this.script?.onStreamEnd && this.turnBytes > 0) this.answer();
      }
    }
    if (msg.clientContent && this.script?.onStreamEnd) this.answer();
  }

  private answer(): void {
    const script = this.script;
    if (!script) return;
    const turn = this.turn++;
    this.turnBytes = 0;
    const said = typeof script.candidateText === 'function' ? script.candidateText(turn) : script.candidateText;
    if (said) this.inputTranscription(said);
    const reply = typeof script.replyText === 'function' ? script.replyText(turn) : script.replyText;
    this.sendAudio(script.replyPcm ?? tone(200), { partBytes: script.partBytes, partsPerMessage: script.partsPerMessage });
    // Real transcriptions arrive in fragments: send the reply in two pieces.
    const cut = reply.indexOf(' ', Math.floor(reply.length / 2));
    if (cut > 0) {
      this.outputTranscription(reply.slice(0, cut));
      this.outputTranscription(reply.slice(cut));
    } else this.outputTranscription(reply);
    this.send({ serverContent: { generationComplete: true } });
    this.turnComplete();
    if (script.usage) this.usage(script.usage.promptTokenCount, script.usage.responseTokenCount);
    if (script.resumption) this.resumptionUpdate(`handle-${this.index}-${++this.handleSeq}`);
  }

  send(msg: Json): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(msg));
  }

  sendAudio(pcm: Buffer, opts: { partBytes?: number | undefined; partsPerMessage?: number | undefined } = {}): void {
    const partBytes = opts.partBytes ?? 1920;
    const perMessage = opts.partsPerMessage ?? 3;
    let parts: Json[] = [];
    for (let off = 0; off < pcm.length; off += partBytes) {
      parts.push({ inlineData: { mimeType: 'audio/pcm;rate=24000', data: pcm.subarray(off, off + partBytes).toString('base64') } });
      if (parts.length === perMessage) {
        this.send({ serverContent: { modelTurn: { role: 'model', parts } } });
        parts = [];
      }
    }
    if (parts.length) this.send({ serverContent: { modelTurn: { role: 'model', parts } } });
  }

  inputTranscription(text: string): void {
    this.send({ serverContent: { inputTranscription: { text } } });
  }
  outputTranscription(text: string): void {
    this.send({ serverContent: { outputTranscription: { text } } });
  }
  turnComplete(): void {
    this.send({ serverContent: { turnComplete: true } });
  }
  interrupted(): void {
    this.send({ serverContent: { interrupted: true } });
  }
  goAway(timeLeft = '5s'): void {
    this.send({ goAway: { timeLeft } });
  }
  resumptionUpdate(newHandle: string, resumable = true): void {
    if (resumable) this.issued.add(newHandle);
    this.send({ sessionResumptionUpdate: { newHandle, resumable } });
  }
  usage(prompt: number, response: number): void {
    this.send({ usageMetadata: { promptTokenCount: prompt, responseTokenCount: response, totalTokenCount: prompt + response } });
  }
  close(code = 1000, reason = ''): void {
    this.ws.close(code, reason);
  }
  autoReply(script: AutoReply): void {
    this.script = script;
  }
  echo(): void {
    this.echoing = true;
  }
  audioBytes(): number {
    return this.audioChunks.reduce((n, c) => n + c.length, 0);
  }
}

export async function startGeminiLiveFake(opts: GeminiLiveFakeOptions = {}): Promise<GeminiLiveFake> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  const connections: FakeLiveConnection[] = [];
  const issued: IssuedHandles = new Set();
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let setups = 0;
  const onSetup = (): void => {
    setups++;
    for (const w of [...waiters]) if (setups >= w.n) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };

  server.on('upgrade', (req, socket, head) => {
    // The SDK doubles the leading slash when baseUrl has no path ('//ws/…'), which URL would read
    // as a host: collapse it before parsing.
    const url = new URL((req.url ?? '/').replace(/^\/+/, '/'), 'http://fake');
    const match = LIVE_PATH_RE.exec(url.pathname) ?? VERTEX_LIVE_PATH_RE.exec(url.pathname);
    const headerKey = req.headers['x-goog-api-key'];
    const key = url.searchParams.get('key') ?? (typeof headerKey === 'string' ? headerKey : null);
    if (!match) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new Connection(connections.length, match[1]!, key, ws, opts, onSetup, issued);
      connections.push(conn);
      opts.onConnection?.(conn);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    connections,
    waitForSetups(n, timeoutMs = 5000) {
      if (setups >= n) return Promise.resolve(connections);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`fake: ${setups}/${n} setups after ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(connections);
          },
        });
      });
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** 24 kHz PCM16 test tone (for scripted replies). */
export const fakeTone = tone;
