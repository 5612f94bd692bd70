import type { IRouter, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { loadMachine } from '../../core/machineRegistry.js';
import type { MachineRegistry } from '../../core/surfaceContract.js';
import type { JournalStore } from '../../core/journal/store.js';
import { DEFAULT_MODEL_COVERAGE_DIR, transitionCoverage } from '../../core/journal/transitionCoverage.js';

/**
 * The inspector's recorded conversations, as JSON for admins:
 *
 *   GET /api/inspect/journal                      recorded conversations, latest first
 *   GET /api/inspect/journal/coverage?machine=M   per transition of M: taken by N recorded conversations, covered by the model tests
 *   GET /api/inspect/journal/:id                  one conversation: header, input, machine, steps
 *
 * An API answers 401 JSON without an admin session (not the login redirect the pages get), 404
 * JSON when admin pages are disabled (ADMIN_PASSWORD unset).
 */
export interface InspectJournalDeps {
  journal: JournalStore;
  /** The process's statecharts by name (the surfaces' declarations). */
  machines: MachineRegistry;
  /** False when ADMIN_PASSWORD is unset. */
  adminEnabled: boolean;
  isAdmin(req: Request): Promise<boolean>;
  /** Where `npm run test:model` writes its coverage (default `coverage/model/` of the working directory). */
  coverageDir?: string;
  /** Recorded conversations the coverage counts at most (the latest). */
  coverageLimit?: number;
}

export const journalIdSchema = z.string().min(1).max(200).regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'letters, digits, dot, dash, underscore or colon');

const listQuery = z.object({ surface: z.string().max(60).optional(), limit: z.coerce.number().int().min(1).max(1000).default(200) });

function jsonAdmin(deps: InspectJournalDeps): RequestHandler {
  return async (req, res, next) => {
    if (!deps.adminEnabled) {
      res.status(404).json({ error: 'admin pages are disabled on this server: set ADMIN_PASSWORD to enable them' });
      return;
    }
    if (!(await deps.isAdmin(req))) {
      res.status(401).json({ error: 'admin login required: sign in at /admin/login, then send the palabre_admin cookie' });
      return;
    }
    next();
  };
}

function badRequest(res: Response, what: string, error: z.ZodError): void {
  res.status(400).json({ error: `invalid ${what}: ${error.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`).join('; ')}` });
}

export function mountInspectJournal(app: IRouter, deps: InspectJournalDeps): void {
  const machineNames = (): string[] => Object.keys(deps.machines);
  const guard = jsonAdmin(deps);

  app.get('/api/inspect/journal', guard, async (req, res) => {
    const q = listQuery.safeParse(req.query);
    if (!q.success) return badRequest(res, 'query', q.error);
    res.json({ conversations: await deps.journal.list({ surface: q.data.surface, limit: q.data.limit }) });
  });

  app.get('/api/inspect/journal/coverage', guard, async (req, res) => {
    const q = z.object({ machine: z.enum(machineNames() as [string, ...string[]]) }).safeParse(req.query);
    if (!q.success) return badRequest(res, 'query (machine must be one of palabre machines)', q.error);
    const machine = (await loadMachine(deps.machines, q.data.machine))!;
    const limit = deps.coverageLimit ?? 500;
    const ids = (await deps.journal.list({ limit: 5000 })).filter((c) => c.machine === q.data.machine).slice(0, limit);
    const recorded = [];
    for (const { id } of ids) {
      const j = await deps.journal.get(id);
      if (j) recorded.push(j.steps);
    }
    res.json(transitionCoverage(q.data.machine, machine, recorded, deps.coverageDir ?? DEFAULT_MODEL_COVERAGE_DIR));
  });

  app.get('/api/inspect/journal/:id', guard, async (req, res) => {
    const id = journalIdSchema.safeParse(req.params.id);
    if (!id.success) return badRequest(res, 'conversation id', id.error);
    const journal = await deps.journal.get(id.data);
    if (!journal) {
      res.status(404).json({ error: `no recorded conversation with id ${id.data}: GET /api/inspect/journal lists them` });
      return;
    }
    const { steps, input, ...header } = journal;
    res.json({ conversation: { ...header, steps: steps.length }, input, machine: { name: journal.machine, known: machineNames().includes(journal.machine), chart: `/inspect/charts/${journal.machine}.svg` }, steps });
  });
}
