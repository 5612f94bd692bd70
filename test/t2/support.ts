import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { GoogleGenAI } from '@google/genai';
import WebSocket from 'ws';
import { createProviders } from '../../actors/llm/providers.js';
import { createAuth } from '../../core/auth.js';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import type { PalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import { createMetrics } from '../../core/metrics.js';
import { Runtime } from '../../core/runtime.js';
import { openStore } from '../../core/store/db.js';
import type { AppContext, RunningSurface } from '../../core/surfaceContract.js';
import { surfaceMounter } from '../../core/server.js';
import { coreServicesFor } from '../support/coreServices.js';
import type { CorrectionService, OralCorrectionRequest } from '../../machines/correctionContract.js';
import { createT2Surface, type T2SurfaceOptions } from '../../actors/t2/surface.js';
import { startGeminiLiveFake, type GeminiLiveFake, type GeminiLiveFakeOptions } from '../fakes/geminiLive.js';

/**
 * A correction service honouring the contract of machines/correctionContract.ts (not a mock of an
 * SDK): it records each request and answers a schema-shaped report, or fails like a grading model
 * that is down (then, per the contract, it still answers the detectors-only report).
 */
export class RecordingCorrections implements CorrectionService {
  readonly oral: OralCorrectionRequest[] = [];
  modelDown = false;
  /** When set, every grading waits for it (a slow grading model). */
  hold: Promise<void> | undefined;
  async correctWritten(): Promise<never> {
    throw new Error('not used by T2');
  }
  async correctOral(req: OralCorrectionRequest) {
    this.oral.push(req);
    if (this.hold) await this.hold;
    const candidateWords = req.transcript.filter((t) => t.speaker === 'candidate').map((t) => t.text).join(' ');
    return {
      productionId: randomUUID(),
      report: {
        tache: req.tache,
        detectorsOnly: this.modelDown,
        ...(this.modelDown ? { detectorsOnlyReason: 'model unavailable' } : {}),
        criteres: { coherence: { score: 3, poids: 25 }, lexique: { score: 3, poids: 25 }, morphosyntaxe: { score: 3, poids: 25 }, phonologie: { score: 0, poids: 25, evalue: false } },
        motsCandidat: candidateWords.split(/\s+/).filter(Boolean).length,
      },
    };
  }
}

export interface T2Env {
  baseUrl: string;
  wsUrl: string;
  fake: GeminiLiveFake | undefined;
  corrections: RecordingCorrections;
  ctx: AppContext<PalabreConfig>;
  config: PalabreConfig;
  server: Server;
  /** The express app the surface is mounted on (a test may add a route, e.g. /readyz behind a proxy). */
  app: express.Express;
  surface: RunningSurface;
  mint(plan: 'free' | 'premium', sub?: string): Promise<string>;
  close(): Promise<void>;
}

export interface T2EnvOptions {
  /** Start the Gemini Live fake and point the SDK at it (audio mode); otherwise text mode. */
  gemini?: boolean | GeminiLiveFakeOptions;
  env?: Record<string, string>;
  /** Use the real corrections service (actors/corrections) instead of RecordingCorrections. */
  realCorrections?: boolean;
  /** Point the SDK at a Gemini Live fake running elsewhere (benchmarks: another process). */
  geminiBaseUrl?: string;
  /** Build the SDK client from configuration (GEMINI_API_KEY + GOOGLE_GEMINI_BASE_URL = the fake). */
  geminiFromConfig?: boolean;
  /** Development auth: no JWT_SECRET, the dev secret in DATA_DIR signs (the dev sign-in exists). */
  devAuth?: boolean;
  /** Reuse this DATA_DIR (a restart) and keep it on close. */
  dir?: string;
  /** The correction service to use (e.g. one that survives a restart). */
  corrections?: RecordingCorrections;
  /** The surface's clock and store wrapper (fencing tests), its recording thread (slow assemblies). */
  surface?: Pick<T2SurfaceOptions, 'now' | 'store' | 'recordings'>;
}

export async function startT2(opts: T2EnvOptions = {}): Promise<T2Env> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'palabre-t2-'));
  const fake = opts.gemini ? await startGeminiLiveFake(typeof opts.gemini === 'object' ? opts.gemini : {}) : undefined;
  const viaConfig = opts.geminiFromConfig && fake ? { GEMINI_API_KEY: 'config-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl } : {};
  const config = loadPalabreConfig({
    env: { DATA_DIR: dir, ...(opts.devAuth ? {} : { JWT_SECRET: 'test-secret-test-secret-0123456789' }), LOG_LEVEL: 'silent', ...viaConfig, ...(opts.env ?? {}) },
    dotenvPath: null,
    file: '',
  });
  const logger = silentLogger();
  const metrics = createMetrics({ defaults: false });
  const db = openStore({ path: join(dir, 'palabre.db') });
  const runtime = new Runtime();
  const providers = createProviders(config, { logger, metrics });
  const liveUrl = opts.geminiFromConfig ? undefined : fake?.baseUrl ?? opts.geminiBaseUrl;
  const genai = liveUrl ? new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { baseUrl: liveUrl, apiVersion: 'v1beta' } }) : undefined;
  const corrections = opts.corrections ?? new RecordingCorrections();
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const ctx: AppContext<PalabreConfig> = { config, logger, db, runtime, metrics, providers, ...coreServicesFor(db, config, logger), publicUrl: `http://127.0.0.1:${port}` };
  const surface = createT2Surface({ ...(opts.surface ?? {}), ...(opts.realCorrections ? {} : { corrections: () => corrections }), ...(genai ? { genai } : {}) });
  const running: RunningSurface = await surface.start(ctx);
  surfaceMounter({ app, server })('t2', running);
  const auth = createAuth(config);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    fake,
    corrections,
    ctx,
    config,
    server,
    app,
    surface: running,
    mint: (plan, sub = 'cand-1') => auth.mintToken({ sub, plan }),
    async close() {
      await running.stop();
      runtime.shutdown();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fake?.close();
      db.close();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ClientMessage {
  type: string;
  [k: string]: unknown;
}

/** A WebSocket client of /t2/live that records everything it receives. */
export class LiveClient {
  readonly json: ClientMessage[] = [];
  readonly binary: Buffer[] = [];
  /** Every frame's kind in arrival order: `audio` for binary ones, the message's `type` otherwise. */
  readonly order: string[] = [];
  closeCode: number | undefined;
  closeReason = '';
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<void>;
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => {
      ws.once('close', (code, reason) => {
        this.closeCode = code;
        this.closeReason = reason.toString();
        this.notify();
        resolve({ code, reason: this.closeReason });
      });
    });
    ws.on('message', (data, isBinary) => {
      const buf = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
      if (isBinary) this.binary.push(buf);
      else this.json.push(JSON.parse(buf.toString('utf8')) as ClientMessage);
      this.order.push(isBinary ? 'audio' : this.json.at(-1)!.type);
      this.notify();
    });
  }

  static async open(env: T2Env, query: Record<string, string>): Promise<LiveClient> {
    const qs = new URLSearchParams(query).toString();
    const c = new LiveClient(new WebSocket(`${env.wsUrl}/t2/live?${qs}`));
    await c.opened;
    return c;
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when `pred` holds (checked on every message), or rejects after `ms`. */
  async until(pred: () => boolean, what: string, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timeout waiting for ${what}; got ${JSON.stringify(this.json.map((m) => m.type === 'transcript' ? `${m.type}:${String(m.speaker)}` : m.type === 'state' ? `state:${String(m.value)}` : m.type))} close=${this.closeCode}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  states(): string[] {
    return this.json.filter((m) => m.type === 'state').map((m) => String(m.value));
  }

  find(type: string): ClientMessage | undefined {
    return this.json.find((m) => m.type === type);
  }

  send(msg: unknown): void {
    this.ws.send(JSON.stringify(msg));
  }
}

/** 16 kHz PCM16 with a recognisable ramp, `ms` long. */
export function pcm16k(ms: number, seed = 1): Buffer {
  const n = Math.round((ms / 1000) * 16000);
  const buf = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) buf.writeInt16LE(((i * 37 + seed * 101) % 20000) - 10000, i * 2);
  return buf;
}
