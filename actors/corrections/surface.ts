import express from 'express';
import type { AppContext, Surface } from '../../core/surfaceContract.js';
import { correctionsRouter } from '../../transports/http/correctionsHttp.js';
import { createCorrectionService, type CorrectionEngine } from './service.js';
import { NOT_FRENCH_MESSAGE, detectFrench } from './language.js';
import { ORAL_TASKS, WRITTEN_TASKS } from '../../prompts/corrections/tasks.js';
import { mountEePages } from '../../web/ee/eeMount.js';
import { addNavLink } from '../../web/layout.js';
import { EE_SUBJECTS, EE_TASKS } from './eeSubjects.js';
import { writtenPracticeDeps } from './eePractice.js';
import { CORRECTION_MIGRATIONS } from './correctionsStore.js';
import { correctionsConfig, type CorrectionsConfig } from './correctionsConfig.js';
import type { LlmConfig } from '../llm/llmConfig.js';

/**
 * The corrections surface (composition root): the correction service (the `correction` chart with
 * its model call, the detectors and the Grammalecte sidecar) behind the HTTP edge
 * `POST /corrections/ee|eo` (transports/http/correctionsHttp.ts), plus `/corrections/autre` for admins,
 * and the candidates' written-practice page `/ee` (web/ee/) with its routes `/api/ee/…`.
 */
/** The HTTP edge of corrections, given what it checks before grading: task codes and language. */
export function correctionsHttp(ctx: AppContext<CorrectionsConfig & LlmConfig>, service: CorrectionEngine, requireAdmin?: express.RequestHandler): express.Router {
  return correctionsRouter({
    ctx, service, ...(requireAdmin ? { requireAdmin } : {}),
    tasks: { written: WRITTEN_TASKS, oral: ORAL_TASKS },
    language: { check: detectFrench, message: NOT_FRENCH_MESSAGE },
    practice: writtenPracticeDeps(service, service.store),
  });
}

export const correctionsSurface: Surface<CorrectionsConfig & LlmConfig> = {
  name: 'corrections',
  machines: {
    correction: () => import('../../machines/correction.js').then((m) => m.correctionMachine),
    llmCall: () => import('../../machines/llmCall.js').then((m) => m.llmCallMachine),
    breaker: () => import('../../machines/breaker.js').then((m) => m.breakerMachine),
  },
  migrations: CORRECTION_MIGRATIONS,
  config: correctionsConfig,
  async start(ctx) {
    const service = createCorrectionService(ctx);
    const routes = express.Router();
    // /corrections/autre exists only for admins: without ADMIN_PASSWORD it is not mounted at all.
    routes.use(correctionsHttp(ctx, service, ctx.config.ADMIN_PASSWORD ? ctx.admin.requireAdmin : undefined));
    // Development (the dev secret signs): the page offers T2's dev sign-in (POST /api/t2/dev/token).
    const devSignin = !ctx.config.JWT_SECRET && !ctx.config.JWT_JWKS_URL;
    mountEePages(routes, { tasks: EE_TASKS, subjects: EE_SUBJECTS, verifyToken: (t) => ctx.auth.verifyToken(t), logger: ctx.logger, devSignin });
    addNavLink({ href: '/ee', label: 'Expression écrite', order: 22 });
    // The banner and /healthz say which engine runs: give Grammalecte its warm-up (≈ 0.3–1 s, another
    // process) before answering, bounded so a slow machine does not hold the start.
    await Promise.race([service.startChecker(), new Promise((r) => setTimeout(r, 3_000).unref())]);
    return {
      routes,
      async stop() {
        // Correction actors are children of the runtime: serve stops the runtime after the surfaces.
        // Grammalecte is shared with T2: core stops it once T2 has graded its drained sessions; only
        // a hand-built context (no shared engines) leaves it to this surface.
        if (!ctx.engines) await service.close();
      },
      health: async () => ({ provider: service.provider().name, model: ctx.config.CORRECTION_MODEL, productions: await service.store.count(), engine: service.checker.status() }),
      notes: () => [service.engineNote()],
      urls: { ee: '/ee', 'POST ee': '/corrections/ee', 'POST eo': '/corrections/eo' },
    };
  },
};
