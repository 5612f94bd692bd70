import { hostname } from 'node:os';
import { join } from 'node:path';
import type { GoogleGenAI } from '@google/genai';
import express from 'express';
import type { AnyActorLogic } from 'xstate';
import type { Store } from '../../core/store/sqlStore.js';
import type { AppContext, RunningSurface, Surface } from '../../core/surfaceContract.js';
import { upgradeChannel } from '../../core/http/upgrades.js';
import { addNavLink } from '../../web/layout.js';
import { attachT2LiveSocket, RESUMED_ELSEWHERE, T2_LIVE_PATH, type Admission } from '../../transports/ws/t2liveSocket.js';
import { mountT2Http } from '../../transports/http/t2Http.js';
import { mountT2Pages } from '../../web/t2/t2Mount.js';
import { loadCorrectionService, type CorrectionsConfig } from '../corrections/contract.js';
import type { CorrectionService } from '../../machines/correctionContract.js';
import type { InterlocutorAudioPort } from './audioPipe.js';
import { RecordingThread } from './recordingThread.js';
import { registerT2OfflineResponder } from './offlineResponder.js';
import { buildSystemPrompt } from '../../prompts/t2/interlocutorPrompt.js';
import { SEED_SUBJECTS } from './seedSubjects.js';
import { SessionStore } from './sessionStore.js';
import { T2_MIGRATIONS } from './migrations.js';
import { SessionQueries, transcriptText } from './sessionQueries.js';
import { SubjectStore } from './subjects.js';
import { Claims, candidateKey } from './claims.js';
import { textInterlocutor } from './textInterlocutor.js';
import { wireT2Session } from './t2Wiring.js';
import { provideT2Instance, startT2Instance, type T2Instance } from './t2InstanceWiring.js';
import { liveModelFor } from '../llm/liveModel.js';
import { surfaceProvider } from '../llm/surfaceEndpoints.js';
import { HandleWrites } from './handleWrites.js';
import { closeFencedSessions, closeInterruptedSessions, finalisePendingRecordings, gradePendingSessions } from './recovery.js';
import { admitReconnect } from './takeover.js';
import type { RestoredSession } from '../../machines/t2live.js';
import type { LlmConfig } from '../llm/llmConfig.js';
import { t2Config, type T2Config } from './t2Config.js';

/** What T2 reads of the configuration: its section, the providers', and the corrections' (it grades). */
type T2Context = AppContext<T2Config & CorrectionsConfig & LlmConfig>;

/**
 * The T2 live surface: migrations 400–499, the 9 seeded subjects, the pages and JSON routes, the
 * `/t2/live` WebSocket. With GEMINI_API_KEY (or Vertex AI) sessions are spoken through Gemini
 * Live; without, the same page and protocol run in text mode through the offline provider.
 */

export interface T2SurfaceOptions {
  /** The correction service; default: the corrections surface's port (actors/corrections/contract.ts). */
  corrections?: (ctx: T2Context) => CorrectionService | Promise<CorrectionService>;
  /** A GoogleGenAI client (tests point one at the wire fake); default from configuration. */
  genai?: GoogleGenAI;
  /** The claims' clock (tests run expiry and fencing on simulated time); default Date.now. */
  now?: () => number;
  /** Wraps the store T2 uses (tests: one whose writes fail on demand, a database cut). */
  store?: (store: Store) => Store;
  /** The recording thread (tests: one whose assemblies are slow); default a RecordingThread. */
  recordings?: () => RecordingThread;
}

/** Lifetime of a development sign-in token: a working session, not a standing credential. */
const DEV_TOKEN_TTL_S = 2 * 3600;

/** Gemini's resumption handles of all sessions are written at most this often, together (actors/t2/handleWrites.ts). */
const HANDLE_WRITE_EVERY_MS = 250;

function geminiConfigured(config: LlmConfig): boolean {
  return Boolean(config.GEMINI_API_KEY) || (config.GEMINI_VERTEX && Boolean(config.GOOGLE_CLOUD_PROJECT));
}

/**
 * The Gemini SDK client (docs/t2-live.md, top): endpoint from GOOGLE_GEMINI_BASE_URL, key or
 * Vertex AI. The SDK is imported here, when Gemini is configured: without a key (text mode)
 * `palabre serve` never holds it, which keeps its idle RSS low.
 */
async function genaiFromConfig(config: LlmConfig): Promise<GoogleGenAI> {
  const { GoogleGenAI } = await import('@google/genai');
  const httpOptions = { apiVersion: 'v1beta', ...(config.GOOGLE_GEMINI_BASE_URL ? { baseUrl: config.GOOGLE_GEMINI_BASE_URL } : {}) };
  if (config.GEMINI_VERTEX) {
    return new GoogleGenAI({
      vertexai: true,
      ...(config.GOOGLE_CLOUD_PROJECT ? { project: config.GOOGLE_CLOUD_PROJECT } : {}),
      ...(config.GOOGLE_CLOUD_LOCATION ? { location: config.GOOGLE_CLOUD_LOCATION } : {}),
      ...(config.GEMINI_API_KEY ? { apiKey: config.GEMINI_API_KEY } : {}),
      httpOptions: { ...httpOptions, apiVersion: 'v1' },
    });
  }
  return new GoogleGenAI({ apiKey: config.GEMINI_API_KEY ?? '', httpOptions });
}

/**
 * What a fenced instance's candidates get: the close code of an upstream or store failure (1011),
 * with words of its own (the page shows them rather than its generic 1011 message).
 */
const FENCED_FRAME = { code: 1011, name: 'STORE_UNAVAILABLE', message: 'Ce serveur a perdu le contact avec la base de données : votre séance est interrompue. Ce qui était enregistré avant la coupure est conservé et sera évalué (« Mes séances »). Vous pourrez commencer une nouvelle séance dans un instant.' } as const;

export function createT2Surface(opts: T2SurfaceOptions = {}): Surface<T2Config & CorrectionsConfig & LlmConfig> {
  return {
    name: 't2',
    machines: {
      t2live: () => import('../../machines/t2live.js').then((m) => m.t2liveMachine),
      t2Instance: () => import('../../machines/t2Instance.js').then((m) => m.t2InstanceMachine),
      t2Takeover: () => import('../../machines/t2Takeover.js').then((m) => m.t2TakeoverMachine),
    },
    migrations: T2_MIGRATIONS,
    config: t2Config,
    async start(ctx: T2Context): Promise<RunningSurface> {
      const { config, logger } = ctx;
      const log = logger.child({ surface: 't2' });
      // T2's tables are on the store port (migrations 400–499).
      const store = opts.store ? opts.store(ctx.store) : ctx.store;
      const instanceId = config.INSTANCE_ID ?? hostname();
      const subjects = new SubjectStore(store);
      const seeded = await subjects.seed(SEED_SUBJECTS);
      if (seeded) log.info({ seeded }, 't2 subjects seeded');
      const sessions = new SessionStore(store, instanceId);
      const claims = new Claims({ store, instanceId, ttlMs: config.T2_LEASE_TTL_MS, ...(opts.now ? { now: opts.now } : {}) });
      await claims.register();
      // Before any new session: what a crash left open is closed `interrupted`, kept, repaired —
      // this instance's previous run, and any instance that stopped renewing its claim.
      const othersAlive = (await claims.alive()).filter((id) => id !== instanceId);
      // Resampling and mixing (of live sessions, and of crashed ones' journals) run off the event loop.
      const recordings = opts.recordings?.() ?? new RecordingThread();
      const recover = (path: string): Promise<number | null> => recordings.recover(path);
      const claimsNow = opts.now ?? Date.now;
      const graceMs = config.T2_RESUME_GRACE_MS;
      const recovered = await closeInterruptedSessions(sessions, log, othersAlive, recover, { now: claimsNow(), graceMs, atStart: true });
      const unregister = registerT2OfflineResponder();
      const { auth } = ctx;
      const corrections = await (opts.corrections ?? loadCorrectionService)(ctx);
      const audio = Boolean(opts.genai) || geminiConfigured(config);
      const ai = audio ? opts.genai ?? (await genaiFromConfig(config)) : undefined;
      // The Live interlocutor (and the SDK's enums it uses) is loaded only in audio mode.
      const geminiInterlocutor = ai ? (await import('./geminiInterlocutor.js')).geminiInterlocutor : undefined;
      // The session loaded its subject (`loadSubject`) before its interlocutor starts.
      const prompt = (sujetId: string): string => {
        const s = subjects.cached(sujetId);
        return s ? buildSystemPrompt(s) : '';
      };
      const textProvider = surfaceProvider(ctx.providers, config, 't2text');
      const liveModel = liveModelFor(config);
      // One Gemini actor logic per session: it carries that session's audio pipe.
      // A session taken over resumes Gemini with the handle its instance stored, and stores its own.
      const handles = new HandleWrites((entries) => sessions.setHandles(entries), HANDLE_WRITE_EVERY_MS, (err, n) => log.warn({ err: (err as Error).message, sessions: n }, 't2 resumption handles not stored: a takeover would resume from an older one or open a new Live session'));
      const saveHandle = (sessionId: string, handle: string): void => handles.save(sessionId, handle);
      const gemini = ai && geminiInterlocutor ? (audioPort: InterlocutorAudioPort, restore?: RestoredSession): AnyActorLogic => geminiInterlocutor({ ai, model: liveModel, systemPrompt: prompt, logger: log, audio: audioPort, saveHandle, ...(restore ? { restore } : {}) }) : undefined;
      // One per session: its reply waits for that session's turn writes (`written`).
      const text = (written: () => Promise<void>, restore?: RestoredSession): AnyActorLogic =>
        textInterlocutor({ subject: (id) => subjects.cached(id), systemPrompt: prompt, provider: textProvider, model: config.T2_TEXT_MODEL, logger: log, written, ...(restore ? { history: restore.transcript } : {}) });
      /** Recordings assembled after their session's save (a drain): the stop waits for them to its deadline. */
      const finalising = new Set<Promise<void>>();
      const deps = {
        logger: log,
        subjects,
        sessions,
        verifyToken: (t: string | undefined) => auth.verifyToken(t),
        corrections,
        interlocutor: (mode: 'audio' | 'text', audioPort: InterlocutorAudioPort, written: () => Promise<void>, restore?: RestoredSession) => (mode === 'audio' && gemini ? gemini(audioPort, restore) : text(written, restore)),
        claimsNow,
        recordingsDir: config.T2_RECORDINGS_DIR ?? join(config.DATA_DIR, 't2-audio'),
        recordings,
        // Set before the drain ends the sessions: none of them waits for its WAV.
        deferRecording: () => stopping(),
        finalising: (done: Promise<void>) => {
          finalising.add(done);
          void done.finally(() => finalising.delete(done));
        },
        timers: { examMs: config.T2_EXAM_DURATION_MS, warningMs: config.T2_WARNING_BEFORE_MS, idleMs: config.T2_IDLE_TIMEOUT_MS, connectMs: config.T2_CONNECT_TIMEOUT_MS, graceMs: config.T2_RESUME_GRACE_MS },
      };
      // Development only: the dev secret signs (no JWT_SECRET, no JWKS), so a page may mint tokens.
      const devSecret = !config.JWT_SECRET && !config.JWT_JWKS_URL;
      const devToken = devSecret
        ? async ({ plan, sub }: { plan: 'free' | 'premium'; sub: string }) => {
            const token = await auth.mintToken({ sub, plan, ttl: `${DEV_TOKEN_TTL_S}s` });
            return { token, expiresAt: new Date(Date.now() + DEV_TOKEN_TTL_S * 1000).toISOString() };
          }
        : undefined;
      /**
       * One live session per candidate across instances: a claim in the store, taken before the
       * session starts. Within this instance the root actor still decides (the newer session
       * replaces, or a reconnect resumes); a candidate live on another instance is refused 4409.
       */
      const admit = async (req: { token: string | undefined; sessionId: string; resume: boolean }): Promise<Admission> => {
        if (fenced() || claims.fenced()) return { ok: false, ...FENCED_FRAME };
        let sub: string;
        try {
          sub = (await auth.verifyToken(req.token)).sub;
        } catch {
          return { ok: true, done: () => Promise.resolve() }; // the session's chart refuses the token (4001)
        }
        // A reconnect may take over the candidate's session another instance held (it died, or stops).
        if (req.resume) return admitReconnect({ claims, sessions, graceMs, now: claimsNow, log }, sub, req.sessionId);
        const key = candidateKey(sub);
        try {
          const claim = await claims.acquire(key, req.sessionId);
          if (!claim.ok) {
            log.info({ holder: claim.holder }, 't2 session refused: the candidate is live on another instance');
            return { ok: false, code: RESUMED_ELSEWHERE, name: 'ACTIVE_ELSEWHERE', message: 'Une séance de ce compte est déjà en cours dans un autre onglet ou une autre fenêtre.' };
          }
        } catch (err) {
          log.error({ err: (err as Error).message }, 't2 candidate claim failed: the store is unreachable');
          return { ok: false, code: 1011, name: 'INTERNAL', message: 'Le service est momentanément indisponible. Réessayez dans un instant.' };
        }
        return { ok: true, done: () => claims.release(key).catch((err: unknown) => log.warn({ err: (err as Error).message }, 't2 candidate claim not released: it expires')) };
      };
      // The instance lifecycle (machines/t2Instance.ts): claims renewed every third of the TTL,
      // fenced when they may expire, orphaned sessions of dead instances swept, drained on stop.
      // Read before it starts by the catch-up grading below and by admissions: a getter.
      const lifecycle: { current?: T2Instance } = {};
      const stopping = (): boolean => lifecycle.current?.stopping() ?? false;
      const fenced = (): boolean => lifecycle.current?.fenced() ?? false;
      // Recordings a drain left pending, of instances not in `alive`: assembled in the background.
      // This instance's own rows count as not alive: only a drain saves a row pending and no
      // sweep starts once this run drains, so a pending row of ours is a past run's.
      const finalise = async (alive: readonly string[]): Promise<void> => {
        const others = alive.filter((id) => id !== instanceId);
        const r = await finalisePendingRecordings({ sessions, log, recover, alive: others, claims, stopped: () => stopping() || fenced() });
        if (r.assembled + r.failed > 0) log.info(r, 't2 recordings a drain left pending assembled');
      };
      const grading = (): ReturnType<typeof gradePendingSessions> => gradePendingSessions({ sessions, subjects, corrections, log, claims, stopped: () => stopping() || fenced() });
      const queries = new SessionQueries(store);
      const routes = express.Router();
      const live = upgradeChannel();
      mountT2Pages(routes, { subjects, verifyToken: deps.verifyToken, logger: log, textMode: !audio, examMs: config.T2_EXAM_DURATION_MS, graceMs: config.T2_RESUME_GRACE_MS, devSignin: Boolean(devToken) });
      mountT2Http(routes, {
        subjects,
        sessions,
        queries: { list: (sub) => queries.list(sub), get: (sub, id) => queries.get(sub, id), transcriptText },
        verifyToken: deps.verifyToken,
        logger: log,
        ...(devToken ? { devToken } : {}),
      });
      const socket = attachT2LiveSocket({
        server: live.source,
        runtime: ctx.runtime,
        logger: log,
        metrics: ctx.metrics,
        maxFrameBytes: config.T2_MAX_FRAME_BYTES,
        maxSessions: config.T2_MAX_SESSIONS,
        defaultMode: audio ? 'audio' : 'text',
        wire: (req) => wireT2Session(deps, req),
        admit,
      });
      addNavLink({ href: '/t2/sujets', label: 'Tâche 2 en direct', order: 20 });
      addNavLink({ href: '/t2/seances', label: 'Mes séances', order: 21 });
      // Sessions a stop or a crash left ungraded are graded in the background (one at a time).
      const catchUp = grading().then(
        (r) => {
          if (r.graded + r.empty + r.failed + recovered.interrupted > 0) log.info({ ...r, interrupted: recovered.interrupted }, 't2 sessions from the last stop dealt with');
        },
        (err: unknown) => log.error({ err: (err as Error).message }, 't2 catch-up grading failed'),
      );
      const waitUntil = (deadlineAt: number): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, Math.max(0, deadlineAt - Date.now())).unref());
      const instance = startT2Instance(
        provideT2Instance({
          claims,
          warn: (err, msg) => log.warn({ err: (err as Error).message }, msg),
          interrupt: () => {
            const ids = socket.interrupt(FENCED_FRAME);
            log.error({ sessions: ids.length, ttlMs: config.T2_LEASE_TTL_MS }, 't2 claims not renewed for too long: fenced (sessions stopped unsaved, not ready) until a renewal succeeds');
            return ids;
          },
          // The last drain's pending recordings (this instance's previous run, dead instances'):
          // assembled on the recording thread while the surface already takes sessions.
          finaliseAtStart: () => finalise(othersAlive),
          sweep: async ({ closeFenced }) => {
            if (closeFenced) {
              // Closed here unless another instance's sweep closed them first (then it grades them).
              const closed = await closeFencedSessions(sessions, log, closeFenced, recover);
              log.info({ closedHere: closed.interrupted }, 't2 claims renewed again: ready');
              if (closed.interrupted > 0) await grading();
            }
            const alive = await claims.alive();
            const stranded = await closeInterruptedSessions(sessions, log, alive, recover, { now: claimsNow(), graceMs });
            if (stranded.interrupted > 0) await grading();
            await finalise(alive);
          },
          // Sessions are handed over only when a reconnect may take them over (a grace period).
          otherInstances: async () => (graceMs > 0 ? (await claims.alive()).filter((id) => id !== instanceId).length : 0),
          drainSessions: async ({ startedAt, deadlineAt, handOver }) => {
            // The save after a grading takes milliseconds; keep a quarter of the budget (≤ 1 s) for it.
            const gradeBy = deadlineAt - Math.min(1000, Math.max(0, deadlineAt - startedAt) / 4);
            const live = socket.sessions();
            // The instance that takes a session over resumes Gemini from its newest handle.
            await handles.flush();
            // Other instances running (the chart asked): each live session is handed over (its page
            // reconnects to one of them, which takes it over) instead of ended.
            const outcome = await socket.drain({ gradeBy, deadlineAt, handOver });
            await handles.flush();
            const level = outcome.cut > 0 ? 'warn' : 'info';
            log[level]({ ...outcome, live, ms: Date.now() - startedAt }, outcome.cut > 0 ? 't2 drain cut sessions short: the next start recovers them' : 't2 sessions drained');
            await socket.close();
          },
          finishDrain: async ({ deadlineAt }) => {
            // The drained sessions' WAVs, in the time left; those not assembled by the deadline stay
            // journals, their rows pending: the next start (or another instance) assembles them.
            const assembling = finalising.size;
            await Promise.race([Promise.allSettled([...finalising]), waitUntil(deadlineAt)]);
            if (assembling > 0) log[finalising.size > 0 ? 'warn' : 'info']({ assembled: assembling - finalising.size, pending: finalising.size }, finalising.size > 0 ? 't2 recordings left pending at the deadline: assembled at the next start' : 't2 recordings of the drained sessions assembled');
            await recordings.stop(Math.max(0, deadlineAt - Date.now()));
            // Only now, with no assembly running here: another instance takes this one's pending
            // recordings once its claim is gone. No other instance waits the TTL.
            await claims.stop().catch((err: unknown) => log.warn({ err: (err as Error).message }, 't2 claims not released: they expire'));
            // The catch-up grading checks `stopping` between sessions; the one in progress may finish.
            await Promise.race([catchUp, waitUntil(deadlineAt)]);
            unregister();
          },
        }),
      );
      lifecycle.current = instance;
      log.info({ mode: audio ? 'audio (Gemini Live)' : 'text (offline interlocutor)', model: audio ? liveModel : `${textProvider.name}:${config.T2_TEXT_MODEL}` }, 't2 live ready');
      return {
        routes,
        sockets: { [T2_LIVE_PATH]: live.handler },
        stop: (stopOpts) => instance.stop(stopOpts?.deadlineAt ?? Date.now() + config.SHUTDOWN_TIMEOUT_MS),
        unready: () => (instance.fenced() ? 't2 claims not renewed: fenced until the store answers' : undefined),
        health: async () => ({ mode: audio ? 'audio' : 'text', interlocutor: audio ? `gemini-live:${liveModel}` : `text:${textProvider.name}`, sessions: socket.sessions(), subjects: (await subjects.list()).length }),
        urls: { t2: '/t2/sujets' },
      };
    },
  };
}

export const t2Surface: Surface = createT2Surface();
