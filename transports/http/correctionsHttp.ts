import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { principalOf } from '../../core/auth.js';
import type { AppContext } from '../../core/surfaceContract.js';
import type { CorrectionService, OralTask, WrittenTask } from '../../machines/correctionContract.js';
import { mountWrittenPractice, type WrittenPracticeDeps } from './eePracticeHttp.js';

/**
 * HTTP edge of the corrections surface. Parse, validate (zod), route to the service; nothing else.
 *   POST /corrections/ee          {tache: EE_T1|EE_T2|EE_T3, consigne, texte}            → report
 *   POST /corrections/eo          {tache: EO_T1|EO_T2|EO_T3, consigne, transcript: [...], sujet?} → report
 *   GET  /candidates/:id/patterns  the caller's own confirmed patterns (≥ 3 of the last 5)
 *   GET  /corrections/autre        recurring `autre` descriptions for review (admin session)
 *   /api/ee/productions[/:id]      the written-practice page's routes (./eePracticeHttp.ts)
 * Callers send `Authorization: Bearer <JWT>`: 401 without a valid one, 400 with the zod issues
 * for a bad body, 504 past CORRECTION_TIMEOUT_MS (55 s; the client waits 60 s).
 */

type TaskCodes = { written: readonly [WrittenTask, ...WrittenTask[]]; oral: readonly [OralTask, ...OralTask[]] };

/** The request bodies, for the task codes the service grades (the taxonomy's, handed in by the surface). */
function bodies(tasks: TaskCodes) {
  const eeBody = z.object({
    tache: z.enum(tasks.written),
    consigne: z.string().trim().min(1).max(4000),
    texte: z.string().min(1).max(20_000).refine((t) => t.trim().length > 0, 'texte est vide'),
  }).strict();
  const eoBody = z.object({
    tache: z.enum(tasks.oral),
    consigne: z.string().trim().min(1).max(4000),
    transcript: z.array(z.object({
      speaker: z.enum(['candidate', 'interlocutor']),
      text: z.string().max(5000),
      atMs: z.number().int().min(0).optional(),
    }).strict()).min(1).max(500)
      .refine((turns) => turns.some((t) => t.speaker === 'candidate' && t.text.trim().length > 0), 'le transcript ne contient aucun tour du candidat'),
    /** Optional T2 fact sheet: the grade then counts the information the dialogue obtained. */
    sujet: z.object({
      titre: z.string().max(200).optional(),
      contexte: z.string().max(2000).optional(),
      faits: z.array(z.object({ theme: z.string().min(1).max(80), keywords: z.array(z.string().min(1).max(40)).max(20).default([]), answer: z.string().min(1).max(400) }).strict()).min(1).max(40),
    }).strict().optional(),
  }).strict();
  return { eeBody, eoBody };
}

const candidateId = z.string().min(1).max(200);

/** What the routes call on the corrections engine (actors/corrections/service.ts): grading, and the review reads, forwarded as JSON. */
interface CorrectionsApi extends CorrectionService {
  patterns(candidateId: string): Promise<unknown>;
  autreReview(): Promise<unknown>;
}

export interface CorrectionsRouterDeps {
  /** The process's services; of the corrections' section it reads the server-side time limit. */
  ctx: AppContext<{ CORRECTION_TIMEOUT_MS: number }>;
  service: CorrectionsApi;
  /** Admin guard for the review endpoint (the docs engineer's admin session); absent = 404. */
  requireAdmin?: express.RequestHandler;
  /** Task codes accepted on each endpoint. */
  tasks: TaskCodes;
  /** Is this production French? A production that is not is refused with 422 before any grading. */
  language: { check: (text: string) => { french: boolean; detected?: string }; message: string };
  /** The written-practice page's routes (`/api/ee/…`); absent = not mounted. */
  practice?: WrittenPracticeDeps;
}

export function correctionsRouter({ ctx, service, requireAdmin, tasks, language, practice }: CorrectionsRouterDeps): Router {
  const { eeBody, eoBody } = bodies(tasks);
  const router = express.Router();
  const bearer = ctx.auth.middleware();
  const jsonBody = express.json({ limit: '256kb' });
  const timeoutMs = ctx.config.CORRECTION_TIMEOUT_MS;

  const reject = (res: Response, status: number, body: Record<string, unknown>, reason: string) => {
    ctx.metrics.inputRejected.inc({ surface: 'corrections', reason });
    res.status(status).json(body);
  };

  // Body-parser errors (bad JSON, too large) as JSON, without echoing the body.
  const parseJson = (req: Request, res: Response, next: NextFunction) => {
    jsonBody(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { status?: number; type?: string };
      reject(res, e.status === 413 ? 413 : 400, { error: e.status === 413 ? 'body_too_large' : 'invalid_json' }, e.type ?? 'invalid_json');
    });
  };

  /** Runs one correction under the server-side limit; aborts it if the client goes away. */
  const withDeadline = async (req: Request, res: Response, work: (signal: AbortSignal) => Promise<unknown>) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
    const onClose = () => { if (!res.writableEnded) controller.abort(new Error('client closed')); };
    res.on('close', onClose);
    try {
      const body = await work(controller.signal);
      if (!res.headersSent) res.json(body);
    } catch (err) {
      if (res.headersSent || res.destroyed) return;
      if (controller.signal.aborted) {
        res.status(504).json({ error: 'timeout', message: `correction longer than ${timeoutMs} ms` });
      } else {
        ctx.logger.error({ err, surface: 'corrections' }, 'correction request failed');
        res.status(500).json({ error: 'correction_failed' });
      }
    } finally {
      clearTimeout(timer);
      res.off('close', onClose);
    }
  };

  router.post('/corrections/ee', bearer, parseJson, (req, res) => {
    const parsed = eeBody.safeParse(req.body);
    if (!parsed.success) return reject(res, 400, { error: 'invalid_body', issues: parsed.error.issues }, 'invalid_body');
    const lang = language.check(parsed.data.texte);
    if (!lang.french) return reject(res, 422, { error: 'not_french', message: language.message, detected: lang.detected }, 'not_french');
    const principal = principalOf(res);
    return withDeadline(req, res, async (signal) => {
      const out = await service.correctWritten({ candidateId: principal.sub, ...parsed.data, signal });
      return { productionId: out.productionId, report: out.report };
    });
  });

  router.post('/corrections/eo', bearer, parseJson, (req, res) => {
    const parsed = eoBody.safeParse(req.body);
    if (!parsed.success) return reject(res, 400, { error: 'invalid_body', issues: parsed.error.issues }, 'invalid_body');
    const lang = language.check(parsed.data.transcript.filter((t) => t.speaker === 'candidate').map((t) => t.text).join('\n'));
    if (!lang.french) return reject(res, 422, { error: 'not_french', message: language.message, detected: lang.detected }, 'not_french');
    const principal = principalOf(res);
    return withDeadline(req, res, async (signal) => {
      const out = await service.correctOral({ candidateId: principal.sub, ...parsed.data, signal });
      return { productionId: out.productionId, report: out.report };
    });
  });

  router.get('/candidates/:id/patterns', bearer, async (req, res) => {
    const id = candidateId.safeParse(req.params.id);
    if (!id.success) return reject(res, 400, { error: 'invalid_candidate', issues: id.error.issues }, 'invalid_candidate');
    // A candidate reads their own patterns only.
    if (principalOf(res).sub !== id.data) return reject(res, 403, { error: 'forbidden', message: 'token subject is another candidate' }, 'forbidden');
    res.json(await service.patterns(id.data));
  });

  if (practice) mountWrittenPractice(router, practice, { bearer, parseJson, reject, withDeadline, language });

  if (requireAdmin) {
    router.get('/corrections/autre', requireAdmin, async (_req, res) => {
      res.json({ threshold: 3, groups: await service.autreReview() });
    });
  }
  return router;
}
