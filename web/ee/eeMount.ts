import express, { type IRouter, type Request, type Response } from 'express';
import { z } from 'zod';
import { extractBearer } from '../../core/auth.js';
import type { Logger } from '../../core/log.js';
import { mountHome, pageCsp, sendPage, webAssetDir } from '../layout.js';
import { mountT2Static } from '../t2/t2Mount.js';
import type { SigninOptions } from '../t2/t2Pages.js';
import { eeHomePage, eeProductionPage, eeWritePage, type EeSubjectView, type EeTaskView } from './eePages.js';

/**
 * The written-practice pages: `/ee`, `/ee/sujets/:id`, `/ee/productions/:id`, and their scripts
 * under `/ee/static/*`. The JSON routes they call are the corrections edge's (`/api/ee/…`,
 * transports/http/eePracticeHttp.ts); the corrections composition root mounts both. The sign-in
 * script, the report renderer and the report styles are T2's (`/t2/static/*`), served here too.
 */

export interface EePagesDeps {
  tasks: readonly EeTaskView[];
  subjects: readonly EeSubjectView[];
  verifyToken: (token: string | undefined) => Promise<{ sub: string }>;
  logger: Logger;
  /** Development: the page offers to mint a short-lived token (T2's POST /api/t2/dev/token). */
  devSignin: boolean;
}

const subjectParam = z.string().min(1).max(100).regex(/^[a-z0-9-]+$/);
const productionParam = z.string().uuid();

export function mountEePages(app: IRouter, deps: EePagesDeps): void {
  mountT2Static(app);
  // The home page lists this process's pages (the nav registry), /ee included.
  mountHome(app);
  app.use(
    '/ee/static',
    express.static(webAssetDir('ee/static'), {
      index: false,
      setHeaders: (res) => {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  app.use('/ee/static', (_req, res) => {
    res.status(404).end();
  });

  /** A host that signs its users in may call a page with a Bearer token: handed to the page once verified. */
  const signin = async (req: Request): Promise<SigninOptions> => {
    const token = extractBearer(req.headers.authorization);
    const ok = token ? await deps.verifyToken(token).then(() => true, () => false) : false;
    return { dev: deps.devSignin, ...(ok && token ? { token } : {}) };
  };
  const page = (res: Response, build: () => Promise<string> | string): void => {
    Promise.resolve()
      .then(build)
      .then((p) => sendPage(res, p, 200, pageCsp()))
      .catch((err: unknown) => {
        deps.logger.error({ err: (err as Error).message }, 'ee page failed');
        res.status(500).type('text/plain; charset=utf-8').send('Erreur interne : rechargez la page.');
      });
  };
  const notFound = (res: Response, what: string): void => {
    res.status(404).type('text/plain; charset=utf-8').send(`${what} introuvable. Retour à la liste : /ee`);
  };

  app.get('/ee', (_req, res) => page(res, () => eeHomePage(deps.tasks, deps.subjects)));
  // The corrections' own path leads a browser to the page that uses them.
  app.get('/corrections', (_req, res) => res.redirect(302, '/ee'));
  app.get('/ee/sujets/:id', (req: Request, res: Response) => {
    const id = subjectParam.safeParse(req.params.id);
    const subject = id.success ? deps.subjects.find((s) => s.id === id.data) : undefined;
    const task = subject && deps.tasks.find((t) => t.tache === subject.tache);
    if (!subject || !task) return notFound(res, 'Sujet');
    page(res, async () => eeWritePage(subject, task, { signin: await signin(req) }));
  });
  app.get('/ee/productions/:id', (req: Request, res: Response) => {
    const id = productionParam.safeParse(req.params.id);
    if (!id.success) return notFound(res, 'Production');
    // Whose it is is checked by the JSON route the page calls with the candidate's token.
    page(res, async () => eeProductionPage(id.data, { signin: await signin(req) }));
  });
}
