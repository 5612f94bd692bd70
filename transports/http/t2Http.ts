import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import express, { type IRouter, type Request, type Response } from 'express';
import { z } from 'zod';
import { extractBearer } from '../../core/auth.js';
import type { Logger } from '../../core/log.js';

/**
 * HTTP edge of T2 (JSON and files; the pages are web/t2/t2Mount.ts): `GET /api/sujets?tache=EO_T2`,
 * `GET /t2/productions/:id/audio.wav`, and the candidate's past sessions:
 * `GET /api/t2/sessions`, `/api/t2/sessions/:id`, `/api/t2/sessions/:id/transcript.txt|audio.wav`,
 * each for its owner only (Bearer JWT whose `sub` is the session's candidate). In development
 * (no JWT_SECRET, no JWKS: the dev secret signs) `POST /api/t2/dev/token` mints a short-lived
 * token so nobody pastes JWTs; with a real secret that route does not exist (404).
 */

/** A past session as the API returns it (actors/t2/sessionQueries.ts reads them from the store). */
export interface TranscriptLine {
  speaker: 'candidate' | 'interlocutor';
  text: string;
  atMs?: number;
}

export interface SessionSummary {
  id: string;
  sujet: { id: string; titre: string | null };
  mode: string;
  status: string;
  endReason: string | null;
  startedAt: string;
  endedAt: string | null;
  productionId: string | null;
  hasAudio: boolean;
  /** Present (true) while the WAV is still being assembled (a drain saved the session first): its download answers 409. */
  audioPending?: true;
  report?: unknown;
}

export interface SessionDetail extends SessionSummary {
  transcript: TranscriptLine[];
}

/** A subject as `GET /api/sujets` lists it (actors/t2/subjects.ts stores them). */
interface SubjectListing {
  id: string;
  titre: string;
  consigne: string;
  contexte: string;
  role: string;
  tache: string;
  mode: string;
}

/** What the audio route reads of a production's session (actors/t2/sessionStore.ts). */
interface SessionAudio {
  candidate_id: string;
  audio_path: string | null;
  /** Set while the WAV is still being assembled. */
  recording_pending: number | null;
}

/** Read side of past sessions (« Mes séances »), handed in by the composition root. */
interface T2SessionReads {
  list(sub: string): Promise<SessionSummary[]>;
  /** The caller's session, or undefined (another candidate's session is not found either). */
  get(sub: string, id: string): Promise<(SessionDetail & { audioPath: string | null }) | undefined>;
  /** The plain-text transcript offered for download. */
  transcriptText(s: SessionDetail): string;
}

export interface T2HttpDeps {
  subjects: { list(): Promise<SubjectListing[]> };
  sessions: { byProduction(productionId: string): Promise<SessionAudio | undefined> };
  verifyToken: (token: string | undefined) => Promise<{ sub: string }>;
  logger: Logger;
  /** Read side of past sessions (« Mes séances »). */
  queries: T2SessionReads;
  /** Present only in development: mints a short-lived token for a chosen plan. */
  devToken?: (req: { plan: 'free' | 'premium'; sub: string }) => Promise<{ token: string; expiresAt: string }>;
}

/** What an API caller gets without a valid token: what happened and what to do. */
const AUTH_REQUIRED = { error: 'auth_required', message: 'Connexion requise : le jeton est absent, invalide ou expiré. Reconnectez-vous depuis votre plateforme, puis réessayez.' };
const NOT_FOUND = { error: 'not_found', message: 'Séance introuvable parmi les vôtres.' };
const BAD_ID = { error: 'bad_session_id', message: 'Identifiant de séance invalide : lettres, chiffres et tirets seulement (200 au plus).' };

const devTokenBody = z
  .object({
    plan: z.enum(['free', 'premium']),
    sub: z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'lettres, chiffres, point, tiret ou souligné').default('dev-candidat'),
  })
  .strict();

const listQuery = z.object({ tache: z.literal('EO_T2').optional() }).strict();
const idParam = z.string().min(1).max(200).regex(/^[A-Za-z0-9-]+$/);

function bearer(req: Request): string | undefined {
  return extractBearer(req.headers.authorization);
}

/** Streams a WAV file the caller owns, as a download. */
/**
 * A session a drain saved before its WAV was assembled (docs/operations.md § Stop): the file on
 * disk may be missing or partly written, so it is not served until its row says it is complete.
 */
function recordingPending(res: Response): void {
  res.set('Retry-After', '5');
  res.set('Cache-Control', 'no-store');
  res.status(409).json({ error: 'recording_pending', message: 'L’enregistrement de cette séance est en cours de finalisation : réessayez dans quelques instants.' });
}

function sendWav(res: Response, path: string, size: number, name: string): void {
  res.status(200);
  res.set('Content-Type', 'audio/wav');
  res.set('Content-Length', String(size));
  res.set('Content-Disposition', `attachment; filename="${name}"`);
  res.set('Cache-Control', 'private, no-store');
  createReadStream(path).pipe(res);
}

export function mountT2Http(app: IRouter, deps: T2HttpDeps): void {
  mountSubjectList(app, deps);
  mountPastSessions(app, deps);
  if (deps.devToken) mountDevToken(app, deps.devToken);
  mountProductionAudio(app, deps);
}

function mountSubjectList(app: IRouter, deps: T2HttpDeps): void {
  // Express 5 hands a rejected handler's error to the error middleware (500).
  app.get('/api/sujets', async (req: Request, res: Response) => {
    const q = listQuery.safeParse(req.query);
    if (!q.success) {
      res.status(400).json({ error: 'bad_query', message: 'seul tache=EO_T2 est servi ici' });
      return;
    }
    res.json({
      sujets: (await deps.subjects.list()).map((s) => ({ id: s.id, titre: s.titre, consigne: s.consigne, contexte: s.contexte, role: s.role, tache: s.tache, mode: s.mode })),
    });
  });
}

/** « Mes séances »: `/api/t2/sessions[/:id[/transcript.txt|/audio.wav]]`, each for its owner only. */
function mountPastSessions(app: IRouter, deps: T2HttpDeps): void {
  /** Runs `fn` for the bearer's candidate; answers 401 with what to do otherwise. */
  const asCandidate = (req: Request, res: Response, fn: (sub: string) => Promise<void> | void): void => {
    deps
      .verifyToken(bearer(req))
      .then(
        async (principal) => {
          await fn(principal.sub);
        },
        () => {
          res.setHeader('WWW-Authenticate', 'Bearer');
          res.status(401).json(AUTH_REQUIRED);
        },
      )
      .catch((err: unknown) => {
        deps.logger.error({ err: (err as Error).message }, 't2 sessions route failed');
        if (!res.headersSent) res.status(500).json({ error: 'internal', message: 'Erreur interne : réessayez dans un instant.' });
      });
  };

  /** The caller's session named by `:id`, or the 400/404 answer already sent. */
  const ownSession = async (req: Request, res: Response, sub: string) => {
    const id = idParam.safeParse(req.params.id);
    if (!id.success) {
      res.status(400).json(BAD_ID);
      return undefined;
    }
    // Another candidate's session answers like a missing one: its existence is not revealed.
    const s = await deps.queries.get(sub, id.data);
    if (!s) res.status(404).json(NOT_FOUND);
    return s;
  };

  app.get('/api/t2/sessions', (req: Request, res: Response) => {
    asCandidate(req, res, async (sub) => {
      const sessions = await deps.queries.list(sub);
      res.set('Cache-Control', 'private, no-store');
      res.json({ sessions });
    });
  });
  app.get('/api/t2/sessions/:id', (req: Request, res: Response) => {
    asCandidate(req, res, async (sub) => {
      const s = await ownSession(req, res, sub);
      if (!s) return;
      const { audioPath: _path, ...view } = s;
      res.set('Cache-Control', 'private, no-store');
      res.json(view);
    });
  });
  app.get('/api/t2/sessions/:id/transcript.txt', (req: Request, res: Response) => {
    asCandidate(req, res, async (sub) => {
      const s = await ownSession(req, res, sub);
      if (!s) return;
      res.set('Cache-Control', 'private, no-store');
      res.set('Content-Disposition', `attachment; filename="t2-${s.id}.txt"`);
      res.type('text/plain; charset=utf-8').send(deps.queries.transcriptText(s));
    });
  });
  app.get('/api/t2/sessions/:id/audio.wav', (req: Request, res: Response) => {
    asCandidate(req, res, async (sub) => {
      const s = await ownSession(req, res, sub);
      if (!s) return;
      if (s.audioPending) {
        recordingPending(res);
        return;
      }
      const st = s.audioPath ? await stat(s.audioPath).catch(() => undefined) : undefined;
      if (!s.audioPath || !st) {
        res.status(404).json({ error: 'no_audio', message: s.mode === 'text' ? 'Séance en mode texte : il n’y a pas d’enregistrement audio.' : 'Aucun enregistrement audio conservé pour cette séance.' });
        return;
      }
      sendWav(res, s.audioPath, st.size, `t2-${s.id}.wav`);
    });
  });
}

/** Development only (the dev secret signs): mints a short-lived token for a chosen plan. */
function mountDevToken(app: IRouter, mint: NonNullable<T2HttpDeps['devToken']>): void {
  app.post('/api/t2/dev/token', express.json({ limit: '2kb' }), (req: Request, res: Response) => {
    // express.json parses only application/json: a cross-site form cannot reach this without CORS.
    const body = devTokenBody.safeParse(req.body ?? {});
    if (!body.success) {
      res.status(400).json({ error: 'bad_request', message: `Requête invalide : ${body.error.issues.map((i) => `${i.path.join('.') || 'corps'} — ${i.message}`).join('; ')}. Attendu : {"plan":"free"|"premium","sub"?:"…"}` });
      return;
    }
    mint(body.data)
      .then((t) => res.set('Cache-Control', 'no-store').json({ ...t, plan: body.data.plan, sub: body.data.sub }))
      .catch((err: unknown) => res.status(500).json({ error: 'cannot_mint', message: (err as Error).message }));
  });
}

/** The recording of a graded production (the report's audio link), for its candidate only. */
function mountProductionAudio(app: IRouter, deps: T2HttpDeps): void {
  app.get('/t2/productions/:id/audio.wav', (req: Request, res: Response) => {
    const id = idParam.safeParse(req.params.id);
    if (!id.success) {
      res.status(404).json({ error: 'not_found' });
      return;
    }
    deps
      .verifyToken(bearer(req))
      .then(async (principal) => {
        const row = await deps.sessions.byProduction(id.data);
        // Another candidate's production answers like a missing one: its existence is not revealed.
        if (!row || row.candidate_id !== principal.sub || !row.audio_path) {
          res.status(404).json({ error: 'not_found' });
          return;
        }
        if (row.recording_pending === 1) {
          recordingPending(res);
          return;
        }
        const st = await stat(row.audio_path).catch(() => undefined);
        if (!st) {
          res.status(404).json({ error: 'not_found' });
          return;
        }
        sendWav(res, row.audio_path, st.size, `t2-${id.data}.wav`);
      })
      .catch(() => {
        res.setHeader('WWW-Authenticate', 'Bearer');
        res.status(401).json({ error: 'auth_required' });
      });
  });
}
