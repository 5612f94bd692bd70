import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import { principalOf } from '../../core/auth.js';
import type { CorrectionOutcome, WrittenTask } from '../../machines/correctionContract.js';

/**
 * The JSON routes of the written-practice page `/ee` (web/ee/), on the corrections edge:
 *   POST /api/ee/productions      {sujet, texte}  → {productionId, report, url}
 *   GET  /api/ee/productions      the caller's written productions, newest first
 *   GET  /api/ee/productions/:id  one of them (text, instruction, report); another candidate's is 404
 * The instruction graded is the subject's, taken from the server's list, never from the page.
 * A text under the grading floor (422 too_short) or not in French (422 not_french) is refused and
 * nothing is stored.
 */

interface PracticeSubject {
  id: string;
  tache: WrittenTask;
  titre: string;
  /** The full instruction graded with the production (task 3: with its documents). */
  consigne: string;
  mots: { min: number; max: number };
}

export interface WrittenProductionSummary {
  id: string;
  tache: string;
  sujet: { id: string | null; titre: string | null };
  createdAt: string;
  mots: number | null;
  scoreGlobal: number | null;
  nclc: string | null;
  detectorsOnly: boolean;
}

export interface WrittenProductionDetail extends WrittenProductionSummary {
  consigne: string;
  texte: string;
  report: unknown;
}

export interface WrittenPracticeDeps {
  subjects: { get(id: string): PracticeSubject | undefined };
  /** Words as the exam counts them (the same count the report gives). */
  countWords: (text: string) => number;
  /** Below this many words, a production is refused (422 too_short). */
  minWords: number;
  grade: (req: { candidateId: string; tache: WrittenTask; consigne: string; texte: string; meta: Record<string, unknown>; signal: AbortSignal }) => Promise<CorrectionOutcome>;
  reads: {
    list(sub: string): Promise<WrittenProductionSummary[]>;
    get(sub: string, id: string): Promise<WrittenProductionDetail | undefined>;
  };
}

/** What the corrections edge lends these routes: its auth, body parser, refusals and deadline. */
export interface CorrectionsEdgeKit {
  bearer: RequestHandler;
  parseJson: (req: Request, res: Response, next: NextFunction) => void;
  reject: (res: Response, status: number, body: Record<string, unknown>, reason: string) => void;
  withDeadline: (req: Request, res: Response, work: (signal: AbortSignal) => Promise<unknown>) => Promise<void>;
  language: { check: (text: string) => { french: boolean; detected?: string }; message: string };
}

const subjectId = z.string().min(1).max(100).regex(/^[a-z0-9-]+$/);
const productionId = z.string().uuid();

function writtenPracticeBody(deps: Pick<WrittenPracticeDeps, 'subjects'>) {
  return z.object({
    sujet: subjectId.refine((id) => deps.subjects.get(id) !== undefined, 'sujet inconnu'),
    texte: z.string().max(20_000, 'texte trop long (20 000 caractères au plus)').refine((t) => t.trim().length > 0, 'texte vide'),
  }).strict();
}

const NOT_FOUND = { error: 'not_found', message: 'Production introuvable parmi les vôtres.' };

export function mountWrittenPractice(router: Router, deps: WrittenPracticeDeps, kit: CorrectionsEdgeKit): void {
  const body = writtenPracticeBody(deps);

  router.post('/api/ee/productions', kit.bearer, kit.parseJson, (req, res) => {
    const parsed = body.safeParse(req.body);
    if (!parsed.success) {
      const message = `Requête invalide : ${parsed.error.issues.map((i) => `${i.path.join('.') || 'corps'} — ${i.message}`).join(' ; ')}.`;
      return kit.reject(res, 400, { error: 'invalid_body', message, issues: parsed.error.issues }, 'invalid_body');
    }
    const subject = deps.subjects.get(parsed.data.sujet)!;
    const words = deps.countWords(parsed.data.texte);
    if (words < deps.minWords) {
      return kit.reject(res, 422, {
        error: 'too_short',
        words,
        minWords: deps.minWords,
        message: `Votre texte compte ${words} mot${words > 1 ? 's' : ''} : il en faut au moins ${deps.minWords} pour qu’il soit corrigé (cette tâche en demande ${subject.mots.min} à ${subject.mots.max}). Il n’a pas été enregistré : complétez-le, puis renvoyez-le.`,
      }, 'too_short');
    }
    const lang = kit.language.check(parsed.data.texte);
    if (!lang.french) return kit.reject(res, 422, { error: 'not_french', message: kit.language.message, detected: lang.detected }, 'not_french');
    const candidateId = principalOf(res).sub;
    return kit.withDeadline(req, res, async (signal) => {
      const out = await deps.grade({
        candidateId, tache: subject.tache, consigne: subject.consigne, texte: parsed.data.texte,
        meta: { sujet: subject.id, titre: subject.titre }, signal,
      });
      return { productionId: out.productionId, report: out.report, url: `/ee/productions/${out.productionId}` };
    });
  });

  router.get('/api/ee/productions', kit.bearer, async (_req, res) => {
    const productions = await deps.reads.list(principalOf(res).sub);
    res.set('Cache-Control', 'private, no-store');
    res.json({ productions });
  });

  router.get('/api/ee/productions/:id', kit.bearer, async (req, res) => {
    const id = productionId.safeParse(req.params.id);
    // Another candidate's production answers like a missing one: its existence is not revealed.
    const p = id.success ? await deps.reads.get(principalOf(res).sub, id.data) : undefined;
    if (!p) {
      res.status(404).json(NOT_FOUND);
      return;
    }
    res.set('Cache-Control', 'private, no-store');
    res.json(p);
  });
}
