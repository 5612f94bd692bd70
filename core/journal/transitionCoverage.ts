import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';
import type { JournalStep } from './step.js';
import { chartTransitions, countTaken, transitionName } from './transitions.js';

/**
 * Per transition of one chart: how many recorded conversations took it, and whether the model
 * tests did (`coverage/model/<machine>.json`, written by `npm run test:model`). Flags the paths
 * real traffic takes that no test took, and the tested paths real traffic never takes.
 */
interface TransitionRow {
  transition: string;
  source: string;
  event: string;
  target: string;
  /** Recorded conversations that took it. */
  taken: number;
  times: number;
  /** Covered by the model tests; null when there is no coverage file for this machine. */
  tested: boolean | null;
  /** `untested`: real traffic takes it, no model test did; `untaken`: tested, no recorded conversation took it. */
  flag: 'untested' | 'untaken' | null;
}

export interface TransitionCoverage {
  machine: string;
  /** Recorded conversations of this machine the counts are over. */
  conversations: number;
  /** Where the model tests' coverage was read, and when it was written; null without a file. */
  modelCoverage: { file: string; runId: string } | null;
  transitions: TransitionRow[];
  takenUntested: string[];
  testedUntaken: string[];
}

const coverageFileSchema = z.object({
  machine: z.string(),
  runId: z.string(),
  transitions: z.object({ total: z.number(), covered: z.number(), uncovered: z.array(z.string()) }),
});

export const DEFAULT_MODEL_COVERAGE_DIR = join(process.cwd(), 'coverage', 'model');

/** The transitions the model tests did not cover, or null when no (readable) coverage file exists. */
function readModelCoverage(dir: string, machine: string): { file: string; runId: string; uncovered: Set<string> } | null {
  const file = join(dir, `${machine}.json`);
  if (!existsSync(file)) return null;
  try {
    const parsed = coverageFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success || parsed.data.machine !== machine) return null;
    return { file: relative(process.cwd(), file) || file, runId: parsed.data.runId, uncovered: new Set(parsed.data.transitions.uncovered) };
  } catch {
    return null;
  }
}

export function transitionCoverage(name: string, machine: AnyStateMachine, recorded: Array<Pick<JournalStep, 'event' | 'state'>[]>, coverageDir: string = DEFAULT_MODEL_COVERAGE_DIR): TransitionCoverage {
  const counts = countTaken(machine, recorded);
  const model = readModelCoverage(coverageDir, name);
  const transitions = chartTransitions(machine).map((t): TransitionRow => {
    const transition = transitionName(t);
    const c = counts.get(transition) ?? { conversations: 0, times: 0 };
    const tested = model ? !model.uncovered.has(transition) : null;
    const flag = c.conversations > 0 && tested === false ? 'untested' : c.conversations === 0 && tested === true ? 'untaken' : null;
    return {
      transition,
      source: t.source.id,
      event: t.eventType === '' ? 'always' : t.eventType,
      target: t.target && t.target.length ? t.target.map((n) => n.id).join(', ') : '',
      taken: c.conversations,
      times: c.times,
      tested,
      flag,
    };
  });
  return {
    machine: name,
    conversations: recorded.length,
    modelCoverage: model ? { file: model.file, runId: model.runId } : null,
    transitions,
    takenUntested: transitions.filter((r) => r.flag === 'untested').map((r) => r.transition),
    testedUntaken: transitions.filter((r) => r.flag === 'untaken').map((r) => r.transition),
  };
}
