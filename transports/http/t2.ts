import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import express, { type Express, type Request, type Response } from 'express';
import { z } from 'zod';
import { pageCsp, sendPage } from '../../web/layout.js';
import { preparationPage, subjectListPage } from '../../web/t2/pages.js';
import type { SessionStore } from '../../actors/t2/sessionStore.js';
import type { SubjectStore } from '../../actors/t2/subjects.js';
import type { Logger } from '../../core/log.js';

/**
 * HTTP edge of T2: `GET /api/sujets?tache=EO_T2` (JSON), the pages (`/t2/sujets`,
 * `/t2/sujets/:id`), the page scripts (`/t2/static/*`) and `GET /t2/productions/:id/audio.wav`,
 * the recording, for its owner only (Bearer JWT whose `sub` is the session's candidate).
 */

export interface T2HttpDeps {
  subjects: SubjectStore;
  sessions: SessionStore;
  verifyToken: (token: string | undefined) => Promise<{ sub: string }>;
  logger: Logger;
  textMode: boolean;
  examMs: number;
}

const listQuery = z.object({ tache: z.literal('EO_T2').optional() }).strict();
const idParam = z.string().min(1).max(200).regex(/^[A-Za-z0-9-]+$/);

function bearer(req: Request): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

/** web/t2/static, from the sources (tsx) or, for the compiled dist/, in the checkout beside it. */
export function t2StaticDir(): string {
  const here = fileURLToPath(new URL('../../web/t2/static', import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL('../../../web/t2/static', import.meta.url));
}

export function mountT2Http(app: Express, deps: T2HttpDeps): void {
  app.use(
    '/t2/static',
    express.static(t2StaticDir(), {
      index: false,
      // web/t2/static holds only the browser scripts; the page sources next to it are not served.
      setHeaders: (res) => {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  app.use('/t2/static', (_req, res) => {
    res.status(404).end();
  });

  app.get('/api/sujets', (req: Request, res: Response) => {
    const q = listQuery.safeParse(req.query);
    if (!q.success) {
      res.status(400).json({ error: 'bad_query', message: 'seul tache=EO_T2 est servi ici' });
      return;
    }
    res.json({
      sujets: deps.subjects.list().map((s) => ({ id: s.id, titre: s.titre, consigne: s.consigne, contexte: s.contexte, role: s.role, tache: s.tache, mode: s.mode })),
    });
  });

  app.get('/t2', (_req, res) => res.redirect(302, '/t2/sujets'));
  app.get('/t2/sujets', (_req, res) => {
    sendPage(res, subjectListPage(deps.subjects.list(), { textMode: deps.textMode }));
  });
  app.get('/t2/sujets/:id', (req: Request, res: Response) => {
    const id = idParam.safeParse(req.params.id);
    const subject = id.success ? deps.subjects.get(id.data) : undefined;
    if (!subject) {
      res.status(404).type('text/plain; charset=utf-8').send('Sujet introuvable.');
      return;
    }
    sendPage(res, preparationPage(subject, { textMode: deps.textMode, examMs: deps.examMs }), 200, pageCsp(['ws:', 'wss:']));
  });

  app.get('/t2/productions/:id/audio.wav', (req: Request, res: Response) => {
    const id = idParam.safeParse(req.params.id);
    if (!id.success) {
      res.status(404).json({ error: 'not_found' });
      return;
    }
    deps
      .verifyToken(bearer(req))
      .then(async (principal) => {
        const row = deps.sessions.byProduction(id.data);
        // Another candidate's production answers like a missing one: its existence is not revealed.
        if (!row || row.candidate_id !== principal.sub || !row.audio_path) {
          res.status(404).json({ error: 'not_found' });
          return;
        }
        const st = await stat(row.audio_path).catch(() => undefined);
        if (!st) {
          res.status(404).json({ error: 'not_found' });
          return;
        }
        res.status(200);
        res.set('Content-Type', 'audio/wav');
        res.set('Content-Length', String(st.size));
        res.set('Content-Disposition', `attachment; filename="t2-${id.data}.wav"`);
        res.set('Cache-Control', 'private, no-store');
        createReadStream(row.audio_path).pipe(res);
      })
      .catch(() => {
        res.setHeader('WWW-Authenticate', 'Bearer');
        res.status(401).json({ error: 'auth_required' });
      });
  });
}
