import { SimulatedClock, type AnyMachineSnapshot, type AnyStateMachine, type EventObject, type InputFrom } from 'xstate';
import { MachineCoverage, formatCoverageLine, writeCoverage, type CoverageFile } from './modelCoverage.js';
import { generatePaths, type EventSamples, type ModelPath } from './paths.js';
import { replayPath, type Oracle, type ReplayFailure, type RunningActor, type StartContext } from './replay.js';

/**
 * Model-based testing of a production statechart: see test/harness/README.md.
 *
 * `runModel(spec)` generates paths from the machine (xstate/graph), replays each one against a
 * running actor with its invoked actors made controllable and time driven by SimulatedClock,
 * and writes what was covered to `coverage/model/<name>.json`.
 */
export interface ModelVariant<M extends AnyStateMachine> {
  /** A name for this configuration (e.g. `breaker open`). */
  name: string;
  /** Called once for the traversal and once per replayed path, with that path's clock. */
  input: (ctx: { clock: SimulatedClock; onCleanup: (fn: () => unknown) => void }) => InputFrom<M>;
  /**
   * Only the spec's scenarios run on this variant, no generated path: for a configuration whose
   * behaviour hangs on a spawned child's state, which the traversal does not run (e.g. a breaker
   * that opens).
   */
  scenariosOnly?: boolean;
}

export interface ModelSpec<M extends AnyStateMachine> {
  /** Coverage file name (`coverage/model/<name>.json`); usually the machine id. */
  name: string;
  /** The production machine, wired as in production where that matters (provided actions). */
  machine: M;
  /** One or more inputs; their coverage adds up (a guard may depend on input). */
  variants: ModelVariant<M>[];
  /** Payloads of events: `output` of done events, `error` of error events, plain event fields. */
  events?: EventSamples;
  /** Invoked actor sources to make controllable; default every actor named in `setup()`. */
  controlled?: string[];
  /** Vertex identity for the traversal (default: value + whole context). */
  serializeState?: (snapshot: AnyMachineSnapshot) => string;
  /** What must equal between model and actor after each step (default: state value). */
  project?: (snapshot: AnyMachineSnapshot) => unknown;
  /** Max simple paths kept (default 200; false: none). */
  simplePaths?: number | false;
  /** Traversal bound (default 20 000 iterations). */
  limit?: number;
  /** Simulated ms between steps (default 0). */
  stepMs?: number;
  /** Build the real wired actor (runtime, transport); default `createActor(machine, {input, clock, inspect})`. */
  start?: (ctx: StartContext<M>) => RunningActor | Promise<RunningActor>;
  describeEvent?: (event: EventObject) => string;
  /**
   * Expectations on what the outside world observed (published, sent, stored, model calls),
   * derived from the specs and not from the chart; checked after every step and at the end of
   * each path. Give `world` from `start` for what the transport or the store recorded.
   */
  oracle?: Oracle;
  /**
   * Event sequences written from the spec, replayed after the generated paths on every variant
   * (or the one named). The graph is generated from the chart under test, so a chart that forgets
   * a rule never generates the path that would show it; a scenario does, and the oracle judges it
   * (there is no model state to compare). A done/error step with no such invocation running fails.
   */
  scenarios?: Array<{ name: string; variant?: string; events: Array<EventObject & Record<string, unknown>> }>;
  /** Print the coverage line (default true). */
  print?: boolean;
  /** Write coverage/model/<name>.json (default true; the harness's own tests turn it off). */
  write?: boolean;
}

export interface ModelRunResult {
  paths: ModelPath[];
  failures: ReplayFailure[];
  /** What this run covered (this spec only). */
  coverage: CoverageFile;
  /** The file as written (merged with other specs of the same machine in this run). */
  written: CoverageFile;
}

const byName = new Map<string, MachineCoverage>();

export async function runModel<M extends AnyStateMachine>(spec: ModelSpec<M>): Promise<ModelRunResult> {
  // Specs of the same machine in one process add up.
  const coverage = byName.get(spec.name) ?? new MachineCoverage(spec.name, spec.machine);
  byName.set(spec.name, coverage);
  const own = new MachineCoverage(spec.name, spec.machine);
  const controlled = spec.controlled ?? Object.keys(spec.machine.implementations.actors);
  const allPaths: ModelPath[] = [];
  const failures: ReplayFailure[] = [];
  // test/model/mutate.ts sets it: a mutant is killed by its first failing path, and the rest of
  // the replays (thousands for the Skull) would only cost minutes per mutant.
  const failFast = process.env.MODEL_FAIL_FAST === '1';
  for (const variant of spec.variants) {
    if (failFast && failures.length > 0) break;
    const cleanups: Array<() => unknown> = [];
    const input = variant.input({ clock: new SimulatedClock(), onCleanup: (fn) => cleanups.push(fn) });
    let generated: ReturnType<typeof generatePaths> = { paths: [], counts: { shortest: 0, simple: 0, transition: 0, scenario: 0 } };
    try {
      if (!variant.scenariosOnly)
        generated = generatePaths(spec.machine, {
        input,
        ...(spec.events ? { samples: spec.events } : {}),
        ...(spec.serializeState ? { serializeState: spec.serializeState } : {}),
        ...(spec.simplePaths !== undefined ? { simplePaths: spec.simplePaths } : {}),
        ...(spec.limit !== undefined ? { limit: spec.limit } : {}),
        ...(spec.describeEvent ? { describeEvent: spec.describeEvent } : {}),
      });
    } finally {
      for (const fn of cleanups.reverse()) await fn();
    }
    for (const cov of [coverage, own]) {
      cov.variants.push(variant.name);
      cov.paths.shortest += generated.counts.shortest;
      cov.paths.simple += generated.counts.simple;
      cov.paths.transition += generated.counts.transition;
    }
    const scenarios: ModelPath[] = (spec.scenarios ?? [])
      .filter((sc) => !sc.variant || sc.variant === variant.name)
      .map((sc) => ({ kind: 'scenario', description: `scenario: ${sc.name}`, steps: [{ event: { type: 'xstate.init' } }, ...sc.events.map((event) => ({ event }))] }));
    for (const path of [...generated.paths, ...scenarios]) {
      allPaths.push(path);
      const injectedBefore = own.injectedAfterEvents;
      const checksBefore = own.oracleChecks;
      const failure = await replayPath(path, {
        machine: spec.machine,
        variant: variant.name,
        input: variant.input,
        controlled,
        ...(spec.start ? { start: spec.start } : {}),
        project: spec.project ?? ((s) => s.value),
        stepMs: spec.stepMs ?? 0,
        coverage: own,
        ...(spec.oracle ? { oracle: spec.oracle } : {}),
      });
      coverage.injectedAfterEvents += own.injectedAfterEvents - injectedBefore;
      coverage.oracleChecks += own.oracleChecks - checksBefore;
      for (const cov of [coverage, own]) {
        cov.paths.replayed++;
        if (failure) cov.paths.failed++;
      }
      if (failure) failures.push(failure);
      if (failFast && failure) break;
    }
  }
  for (const s of own.states) coverage.states.add(s);
  for (const t of own.transitions) coverage.transitions.add(t);
  const written = spec.write === false ? coverage.toJSON() : writeCoverage(coverage);
  if (spec.print !== false) console.log(`[model] ${formatCoverageLine(written)}`);
  return { paths: allPaths, failures, coverage: own.toJSON(), written };
}

export { type EventSamples } from './paths.js';
export { type OracleContext } from './replay.js';
