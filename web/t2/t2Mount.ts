import express, { type IRouter, type Request, type Response } from 'express';
import { z } from 'zod';
import { extractBearer } from '../../core/auth.js';
import type { Logger } from '../../core/log.js';
import { sendErrorPage } from '../errorPage.js';
import { mountStatic, pageCsp, sendPage, webAssetDir } from '../layout.js';
import { preparationPage, sessionListPage, sessionReportPage, subjectListPage, type SigninOptions, type SubjectView } from './t2Pages.js';

/**
 * The T2 pages: `/t2/sujets`, `/t2/sujets/:id` (preparation, then live), « Mes séances »
 * `/t2/seances[/:id]`, and their scripts under `/t2/static/*`. The JSON routes they call are the
 * HTTP edge's (transports/http/t2Http.ts); the composition root (actors/t2/surface.ts) mounts both.
 */

export interface T2PagesDeps {
  subjects: { list(): Promise<SubjectView[]>; get(id: string): Promise<SubjectView | undefined> };
  verifyToken: (token: string | undefined) => Promise<{ sub: string }>;
  logger: Logger;
  textMode: boolean;
  examMs: number;
  /** T2_RESUME_GRACE_MS: how long the page may try to resume a session whose socket dropped. */
  graceMs?: number;
  /** Development: the page offers to mint a short-lived token (POST /api/t2/dev/token). */
  devSignin: boolean;
}

const idParam = z.string().min(1).max(200).regex(/^[A-Za-z0-9-]+$/);

/** web/t2/static: the browser scripts and stylesheet of the T2 pages. */
function t2StaticDir(): string {
  return webAssetDir('t2/static');
}

/** Also mounted by the written-practice pages (web/ee), which share the sign-in, report and styles. */
const staticMounted = new WeakSet<IRouter>();

export function mountT2Static(app: IRouter): void {
  if (staticMounted.has(app)) return;
  staticMounted.add(app);
  // The pages use the site stylesheet: serve it even when no other surface with pages runs.
  mountStatic(app);
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
}

export function mountT2Pages(app: IRouter, deps: T2PagesDeps): void {
  mountT2Static(app);
  /**
   * The host platform may call a page with `Authorization: Bearer <jwt>` (a proxy that signs its
   * users in): a token that verifies is handed to the page, which then needs no sign-in step.
   */
  const signin = async (req: Request): Promise<SigninOptions> => {
    const token = extractBearer(req.headers.authorization);
    const ok = token ? await deps.verifyToken(token).then(() => true, () => false) : false;
    return { dev: deps.devSignin, ...(ok && token ? { token } : {}) };
  };
  const page = (res: Response, build: () => Promise<string>, csp?: string): void => {
    build()
      .then((p) => sendPage(res, p, 200, csp))
      .catch((err: unknown) => {
        deps.logger.error({ err: (err as Error).message }, 't2 page failed');
        res.status(500).type('text/plain; charset=utf-8').send('Erreur interne : rechargez la page.');
      });
  };

  app.get('/t2', (_req, res) => res.redirect(302, '/t2/sujets'));
  app.get('/t2/sujets', (_req, res) => {
    page(res, async () => subjectListPage(await deps.subjects.list(), { textMode: deps.textMode }));
  });
  // Express 5 hands a rejected handler's error to the error middleware (500).
  app.get('/t2/sujets/:id', async (req: Request, res: Response) => {
    const id = idParam.safeParse(req.params.id);
    const subject = id.success ? await deps.subjects.get(id.data) : undefined;
    if (!subject) {
      sendErrorPage(res, 404, { message: 'Ce sujet n’existe pas ou n’est plus proposé. Choisissez-en un dans la liste des sujets.' });
      return;
    }
    page(res, async () => preparationPage(subject, { textMode: deps.textMode, examMs: deps.examMs, graceMs: deps.graceMs ?? 0, signin: await signin(req) }), pageCsp(['ws:', 'wss:']));
  });

  app.get('/t2/seances', (req: Request, res: Response) => {
    page(res, async () => sessionListPage({ signin: await signin(req) }));
  });
  app.get('/t2/seances/:id', (req: Request, res: Response) => {
    const id = idParam.safeParse(req.params.id);
    if (!id.success) {
      sendErrorPage(res, 404, { message: 'Cette séance est introuvable. Retrouvez vos séances dans « Mes séances ».' });
      return;
    }
    page(res, async () => sessionReportPage(id.data, { signin: await signin(req) }));
  });
}
