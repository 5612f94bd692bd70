import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyStateMachine, InspectionEvent } from 'xstate';
import { activeStateIds, inventory, transitionId, withAncestors, type Inventory } from './inventory.js';

/**
 * Which states and transitions of one machine the replayed paths really went through, observed
 * on the running actor through XState's inspection stream (`@xstate.microstep` carries the
 * transitions taken, eventless ones included), not inferred from the generated model.
 */
export interface Contribution {
  variants: string[];
  paths: { shortest: number; simple: number; transition: number; replayed: number; failed: number };
  /** `xstate.after.*` steps that had to be sent as events because no timer was pending. */
  injectedAfterEvents: number;
  /** Expectations on what the world observed (`oracle` of the spec) checked along the replays. */
  oracleChecks: number;
  coveredStates: string[];
  coveredTransitions: string[];
}

export interface CoverageFile extends Omit<Contribution, 'coveredStates' | 'coveredTransitions'> {
  machine: string;
  /** Files of one run (`npm run test:model`, or one vitest invocation) are merged, not overwritten. */
  runId: string;
  states: { total: number; covered: number; uncovered: string[] };
  transitions: { total: number; covered: number; uncovered: string[] };
  /** Per test process, so that several test files can add to one machine's figures. */
  contributions: Record<string, Contribution>;
}

export const COVERAGE_DIR = join(process.cwd(), 'coverage', 'model');
export const RUN_ID_ENV = 'PALABRE_MODEL_RUN_ID';

/** Vitest's forked workers share their parent: its pid identifies one `vitest run`. */
function currentRunId(): string {
  return process.env[RUN_ID_ENV] ?? `ppid-${process.ppid}`;
}

export class MachineCoverage {
  readonly inventory: Inventory;
  readonly states = new Set<string>();
  readonly transitions = new Set<string>();
  readonly variants: string[] = [];
  paths = { shortest: 0, simple: 0, transition: 0, replayed: 0, failed: 0 };
  injectedAfterEvents = 0;
  oracleChecks = 0;

  constructor(
    readonly name: string,
    machine: AnyStateMachine,
  ) {
    this.inventory = inventory(machine);
  }

  /**
   * An `inspect` callback recording what `machine`'s actors do. Filtering on the logic (not on an
   * actor ref) lets a transport-wired actor be observed even when the test did not create it.
   */
  observer(machine: AnyStateMachine): (event: InspectionEvent) => void {
    return (event) => {
      if ((event.actorRef as { logic?: unknown }).logic !== machine) return;
      if (event.type === '@xstate.microstep') {
        for (const t of event._transitions) {
          this.transitions.add(transitionId(t));
          for (const id of withAncestors(t.source)) this.states.add(id);
          for (const target of t.target ?? []) for (const id of withAncestors(target)) this.states.add(id);
        }
        this.addValue(machine, event.snapshot);
      } else if (event.type === '@xstate.snapshot') {
        this.addValue(machine, event.snapshot);
      }
    };
  }

  private addValue(machine: AnyStateMachine, snapshot: unknown): void {
    if (typeof snapshot === 'object' && snapshot !== null && 'value' in snapshot) {
      const value = (snapshot as { value: Parameters<typeof activeStateIds>[1] }).value;
      for (const id of activeStateIds(machine, value)) this.states.add(id);
    }
  }

  contribution(): Contribution {
    return {
      variants: [...this.variants],
      paths: { ...this.paths },
      injectedAfterEvents: this.injectedAfterEvents,
      oracleChecks: this.oracleChecks,
      coveredStates: [...this.states].sort(),
      coveredTransitions: [...this.transitions].sort(),
    };
  }

  toJSON(): CoverageFile {
    return summarize(this.name, currentRunId(), this.inventory, { [String(process.pid)]: this.contribution() });
  }
}

function summarize(machine: string, runId: string, inv: Inventory, contributions: Record<string, Contribution>): CoverageFile {
  const all = Object.values(contributions);
  const states = new Set(all.flatMap((c) => c.coveredStates).filter((s) => inv.states.includes(s)));
  const transitions = new Set(all.flatMap((c) => c.coveredTransitions).filter((t) => inv.transitions.includes(t)));
  const sum = (k: keyof Contribution['paths']) => all.reduce((n, c) => n + c.paths[k], 0);
  return {
    machine,
    runId,
    variants: all.flatMap((c) => c.variants),
    paths: { shortest: sum('shortest'), simple: sum('simple'), transition: sum('transition'), replayed: sum('replayed'), failed: sum('failed') },
    injectedAfterEvents: all.reduce((n, c) => n + c.injectedAfterEvents, 0),
    oracleChecks: all.reduce((n, c) => n + (c.oracleChecks ?? 0), 0),
    states: { total: inv.states.length, covered: states.size, uncovered: inv.states.filter((s) => !states.has(s)) },
    transitions: { total: inv.transitions.length, covered: transitions.size, uncovered: inv.transitions.filter((t) => !transitions.has(t)) },
    contributions,
  };
}

/**
 * Writes `coverage/model/<machine>.json`: this process's contribution, plus those of the other
 * processes of the same run already in the file.
 */
export function writeCoverage(cov: MachineCoverage, dir = COVERAGE_DIR): CoverageFile {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${cov.name}.json`);
  const runId = currentRunId();
  let contributions: Record<string, Contribution> = {};
  if (existsSync(file)) {
    try {
      const previous = JSON.parse(readFileSync(file, 'utf8')) as CoverageFile;
      if (previous.runId === runId) contributions = previous.contributions ?? {};
    } catch {
      // A half-written or foreign file: this run's data replaces it.
    }
  }
  contributions[String(process.pid)] = cov.contribution();
  const data = summarize(cov.name, runId, cov.inventory, contributions);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n');
  renameSync(tmp, file);
  return data;
}

const pct = (covered: number, total: number) => (total === 0 ? 100 : Math.floor((covered / total) * 1000) / 10);

/** One line per machine, as printed by the harness and the reporter. */
export function formatCoverageLine(c: CoverageFile): string {
  const paths = c.paths.shortest + c.paths.simple + c.paths.transition;
  return `${c.machine}: ${paths} paths (${c.paths.replayed} replayed, ${c.paths.failed} failed), states ${c.states.covered}/${c.states.total} (${pct(c.states.covered, c.states.total)} %), transitions ${c.transitions.covered}/${c.transitions.total} (${pct(c.transitions.covered, c.transitions.total)} %), ${c.oracleChecks ?? 0} oracle checks`;
}

export { pct };
