import { randomUUID } from 'node:crypto';
import { fromPromise, type AnyActorLogic, type AnyActorRef, type AnyStateMachine } from 'xstate';
import type { AppContext } from '../../core/surfaceContract.js';
import type { CoreConfig } from '../../core/config/schema.js';
import type { LlmConfig } from '../llm/llmConfig.js';
import type { CorrectionsConfig } from './correctionsConfig.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { Runtime } from '../../core/runtime.js';
import type { Db } from '../../core/store/db.js';
import { storeOf } from '../../core/store/appStore.js';
import type { Store } from '../../core/store/sqlStore.js';
import type { ProviderRegistry } from '../llm/registry.js';
import { surfaceProvider } from '../llm/surfaceEndpoints.js';
import type { LlmProvider } from '../../machines/llmPort.js';
import { provideLlmCall } from '../llm/llmWiring.js';
import { type CorrectionInput, type CorrectionOutput, type ValidateOutput } from '../../machines/correction.js';
import { buildCorrectionPrompt, repairInstruction } from '../../prompts/corrections/gradingPrompt.js';
import { assembleReport } from './assemble.js';
import { normaliseProduction } from './normalise.js';
import type { CorrectionOutcome, CorrectionService, OralCorrectionRequest, WrittenCorrectionRequest } from '../../machines/correctionContract.js';
import { cacheDir, setCacheDir } from './cache.js';
import { Checker } from './checker.js';
import { INSTALL_HINT, locateGrammalecte } from './grammalecte/locate.js';
import { GrammalectePool } from './grammalecte/pool.js';
import { withEngines } from './engines.js';
import { autreReview, candidatePatterns, type AutreGroup, type CandidatePatterns } from './patterns.js';
import type { Production } from '../../prompts/corrections/tasks.js';
import { CorrectionStore } from './correctionsStore.js';
import { validateModelAnswer } from './validate.js';
import { wireCorrection, type CorrectionActors } from './correctionsWiring.js';

/**
 * The corrections service: each request is one `correction` actor spawned in the process's
 * runtime (kind `correction`), wired here to the provider, the detectors and the store.
 * Implements the CorrectionService contract the T2 live session calls at the end of a session.
 */

/** Margin between the grading deadline and the HTTP limit: detectors + saving take milliseconds. */
const DEADLINE_MARGIN_MS = 3_000;

type CorrectionConfig = Pick<CoreConfig & LlmConfig & CorrectionsConfig,
  'CORRECTION_PROVIDER' | 'CORRECTION_MODEL' | 'CORRECTION_BASE_URL' | 'CORRECTION_API_KEY' | 'CORRECTION_TIMEOUT_MS' | 'CORRECTION_ATTEMPT_TIMEOUT_MS' | 'CORRECTION_MAX_TOKENS'
  | 'LLM_MAX_RETRIES' | 'LLM_BACKOFF_BASE_MS' | 'LLM_RETRY_AFTER_CAP_MS'
  | 'GRAMMALECTE' | 'GRAMMALECTE_PATH' | 'GRAMMALECTE_PYTHON' | 'GRAMMALECTE_TIMEOUT_MS' | 'GRAMMALECTE_WORKERS' | 'PALABRE_CACHE_DIR'>;

export interface CorrectionsDeps {
  db: Db;
  /** The store port (SQLite or Postgres); default: SQLite over `db`. */
  store?: Store | undefined;
  runtime: Runtime;
  providers: ProviderRegistry;
  config: CorrectionConfig;
  logger: Logger;
  metrics?: Pick<Metrics, 'llmRetries'>;
  /**
   * The chart each request runs, given the actors this engine wires (default:
   * `wireCorrection` in correctionsWiring.ts). Model tests hand in the chart with its invoked actors
   * made controllable, to replay paths through the real engine and HTTP edge.
   */
  provideChart?: (actors: CorrectionActors) => AnyStateMachine;
}

/** The invoked actors of the `correction` chart, as the engine implements them. */

export class CorrectionEngine implements CorrectionService {
  readonly store: CorrectionStore;
  /** The offline checker: built-in detectors, plus Grammalecte when it runs. */
  readonly checker: Checker;
  private readonly grammalecte: GrammalectePool | undefined;
  private readonly log: Logger;

  constructor(private readonly deps: CorrectionsDeps) {
    this.store = new CorrectionStore(storeOf({ db: deps.db, store: deps.store }));
    this.log = deps.logger.child({ surface: 'corrections' });
    const c = deps.config;
    setCacheDir(c.PALABRE_CACHE_DIR);
    const found = c.GRAMMALECTE === 'off' ? undefined : locateGrammalecte(c.GRAMMALECTE_PATH, cacheDir());
    if (found && 'path' in found) {
      this.grammalecte = new GrammalectePool({ python: c.GRAMMALECTE_PYTHON, pythonPath: found.path, timeoutMs: c.GRAMMALECTE_TIMEOUT_MS, size: c.GRAMMALECTE_WORKERS, logger: this.log });
    }
    // No sidecar and nothing missing means GRAMMALECTE=off: a choice the reports do not warn about.
    this.checker = new Checker(this.grammalecte, found && 'missing' in found ? found.missing : undefined, this.log);
  }

  /**
   * Starts the Grammalecte sidecar (another process: the event loop keeps serving while it warms).
   * Resolves once it is ready or has failed — never rejects: without it the detectors still run.
   */
  startChecker(): Promise<void> {
    this.checkerStart ??= this.startCheckerOnce();
    return this.checkerStart;
  }

  private checkerStart: Promise<void> | undefined;

  private async startCheckerOnce(): Promise<void> {
    if (!this.grammalecte) {
      this.log.warn({ reason: this.checker.status().reason, install: INSTALL_HINT }, 'corrections: built-in detectors only (Grammalecte not found)');
      return;
    }
    const t0 = performance.now();
    try {
      await this.grammalecte.start();
      this.log.info({ version: this.grammalecte.version, warmMs: this.grammalecte.warmMs, ms: Math.round(performance.now() - t0) }, 'corrections: Grammalecte ready');
    } catch (err) {
      this.log.warn({ err: (err as Error).message, install: INSTALL_HINT }, 'corrections: Grammalecte did not start; built-in detectors only');
    }
  }

  /** One line for the start banner: which engine checks productions, and how to get the other. */
  engineNote(): string {
    const s = this.checker.status();
    if (s.engine === 'grammalecte') return `corrections engine: Grammalecte ${s.version ?? ''} + built-in detectors`.trim();
    if (this.grammalecte?.state === 'starting') return 'corrections engine: Grammalecte warming up (requests wait for it) + built-in detectors';
    return `corrections engine: built-in detectors only (${s.reason}); for Grammalecte: ${INSTALL_HINT}`;
  }

  /** The Grammalecte process id (benchmarks read its memory; tests kill it to check the restart). */
  checkerPid(): number | undefined {
    return this.grammalecte?.pid();
  }

  /**
   * Stops Grammalecte. Core calls it once every surface using this engine has drained (T2 grades its
   * last sessions with it); a check after it gets a clear error and the detectors alone.
   */
  async close(): Promise<void> {
    await this.grammalecte?.stop();
  }

  /** The provider grading reports (`offline` when no key is configured). */
  provider(): LlmProvider {
    return surfaceProvider(this.deps.providers, this.deps.config, 'corrections');
  }

  correctWritten(req: WrittenCorrectionRequest): Promise<CorrectionOutcome> {
    return this.run({ epreuve: 'EE', tache: req.tache, consigne: req.consigne, texte: req.texte }, { candidateId: req.candidateId, meta: req.meta }, req.signal);
  }

  correctOral(req: OralCorrectionRequest): Promise<CorrectionOutcome> {
    return this.run(
      { epreuve: 'EO', tache: req.tache, consigne: req.consigne, transcript: req.transcript, ...(req.sujet ? { sujet: req.sujet } : {}) },
      { candidateId: req.candidateId, kind: req.kind, meta: req.meta, audioPath: req.audioPath },
      req.signal,
    );
  }

  patterns(candidateId: string): Promise<CandidatePatterns> {
    return candidatePatterns(this.store, candidateId);
  }

  autreReview(): Promise<AutreGroup[]> {
    return autreReview(this.store);
  }

  /** The statechart with every named actor provided for one request. */
  logicFor(save: { candidateId: string; kind?: string | undefined; meta?: Record<string, unknown> | undefined; audioPath?: string | undefined }, provider: LlmProvider) {
    const actors: CorrectionActors = {
      buildPrompt: fromPromise(async ({ input }: { input: { production: Production } }) => buildCorrectionPrompt(input.production)),
      llmCall: provideLlmCall(provider, this.deps.metrics ? { metrics: this.deps.metrics } : {}),
      validate: fromPromise(async ({ input }: { input: { answer: string; production: Production } }): Promise<ValidateOutput> => {
        const v = validateModelAnswer(input.answer, input.production);
        return v.ok ? v : { ok: false, errors: v.errors, repairMessage: repairInstruction(v.errors) };
      }),
      mergeDetectors: fromPromise(async ({ input }) => {
        const checked = await this.checker.check(input.production);
        return withEngines(assembleReport({
          production: input.production,
          findings: checked.findings,
          ...(input.model ? { model: input.model } : {}),
          ...(input.fallback ? { fallback: input.fallback } : {}),
        }), checked);
      }),
      save: fromPromise(async ({ input }) =>
        this.store.save({
          candidateId: save.candidateId,
          production: input.production,
          report: input.report,
          ...(save.kind ? { kind: save.kind } : {}),
          ...(save.meta ? { meta: save.meta } : {}),
          ...(save.audioPath ? { audioPath: save.audioPath } : {}),
        })),
    };
    return this.deps.provideChart ? this.deps.provideChart(actors) : wireCorrection(actors);
  }

  inputFor(production: Production, provider: LlmProvider): CorrectionInput {
    const c = this.deps.config;
    return {
      production,
      offline: provider.name === 'offline',
      model: c.CORRECTION_MODEL,
      maxTokens: c.CORRECTION_MAX_TOKENS,
      gradingDeadlineMs: Math.max(1_000, c.CORRECTION_TIMEOUT_MS - DEADLINE_MARGIN_MS),
      call: {
        maxRetries: c.LLM_MAX_RETRIES,
        attemptTimeoutMs: c.CORRECTION_ATTEMPT_TIMEOUT_MS,
        backoffBaseMs: c.LLM_BACKOFF_BASE_MS,
        retryAfterCapMs: c.LLM_RETRY_AFTER_CAP_MS,
      },
    };
  }

  private async run(
    production: Production,
    save: { candidateId: string; kind?: string | undefined; meta?: Record<string, unknown> | undefined; audioPath?: string | undefined },
    signal?: AbortSignal,
  ): Promise<CorrectionOutcome> {
    signal?.throwIfAborted();
    production = normaliseProduction(production);
    const provider = this.provider();
    const systemId = `correction:${randomUUID()}`;
    const started = performance.now();
    const ref = this.deps.runtime.start('correction', systemId, this.logicFor(save, provider) as AnyActorLogic, this.inputFor(production, provider));
    try {
      const output = await waitForOutput(ref, signal);
      if (!output.ok) {
        this.log.error({ tache: production.tache, error: output.error }, 'correction failed');
        throw new Error(output.error);
      }
      const r = output.report;
      this.log.info(
        { tache: production.tache, productionId: output.productionId, source: r.source, reason: r.detectorsOnlyReason, errors: r.erreurs.length, ms: Math.round(performance.now() - started) },
        r.detectorsOnly ? 'correction from the detectors alone' : 'correction graded',
      );
      return { report: r as CorrectionOutcome['report'], productionId: output.productionId };
    } finally {
      // Releases the systemId (and aborts a model call still in flight after an abort).
      this.deps.runtime.stop(systemId);
    }
  }
}

function waitForOutput(ref: AnyActorRef, signal?: AbortSignal): Promise<CorrectionOutput> {
  return new Promise<CorrectionOutput>((resolve, reject) => {
    type Snap = { status: string; output?: unknown; error?: unknown };
    const cleanup = () => {
      sub.unsubscribe();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      cleanup();
      reject(signal?.reason instanceof Error ? signal.reason : new Error('correction aborted'));
    };
    const check = (snap: Snap) => {
      if (snap.status === 'done') {
        cleanup();
        resolve(snap.output as CorrectionOutput);
      } else if (snap.status === 'error') {
        cleanup();
        reject(snap.error instanceof Error ? snap.error : new Error(String(snap.error)));
      }
    };
    const sub = ref.subscribe({ next: check, error: (err: unknown) => { cleanup(); reject(err instanceof Error ? err : new Error(String(err))); } });
    signal?.addEventListener('abort', onAbort, { once: true });
    check(ref.getSnapshot() as Snap);
  });
}

/**
 * One engine per process (the corrections surface and the T2 surface share it), so one Grammalecte
 * process per server; stopped by core after both surfaces have drained, never by one of them. Its
 * start is begun here, off the event loop (a child process).
 */
export function createCorrectionService(ctx: AppContext<CorrectionsConfig & LlmConfig>): CorrectionEngine {
  return ctx.engines.shared('corrections', () => {
    const engine = new CorrectionEngine({ db: ctx.db, store: ctx.store, runtime: ctx.runtime, providers: ctx.providers, config: ctx.config, logger: ctx.logger, metrics: ctx.metrics });
    void engine.startChecker();
    return engine;
  }, (engine) => engine.close());
}
