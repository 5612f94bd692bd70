import { describe, expect, it } from 'vitest';
import { allMachines } from '../../actors/serve.js';
import { echoSurface, surfaces } from '../../actors/surfaces.js';
import { allNodes, chartOf } from '../../actors/statecharts/chart.js';
import { loadMachine } from '../../core/machineRegistry.js';

/**
 * Every state of every registered chart — the machine itself, nested states and parallel regions
 * included — says in one line what the conversation is doing or waiting for there: the inspector,
 * the docs diagrams and `palabre machines` show it. One test per machine, so a chart added or
 * edited without its descriptions is named. The example surface's chart is walked too: it is the
 * template a new chart is copied from.
 */
const MACHINES = await allMachines([...surfaces, echoSurface]);

describe('every state of every registered machine has a description', () => {
  it('the registry is walked, not a hand-kept list', () => {
    expect(Object.keys(MACHINES).length).toBeGreaterThanOrEqual(8);
    expect(Object.keys(MACHINES)).toContain('echo');
  });

  for (const name of Object.keys(MACHINES)) {
    it(name, async () => {
      const chart = chartOf(name, (await loadMachine(MACHINES, name))!);
      const missing = allNodes(chart).filter((n) => !n.description?.trim()).map((n) => n.id);
      expect(missing, `${name}: states without a description`).toEqual([]);
      // One line each: the inspector writes it on a single line, Mermaid reads a line.
      const multiline = allNodes(chart).filter((n) => /\n/.test(n.description ?? '')).map((n) => n.id);
      expect(multiline).toEqual([]);
    });
  }
});
