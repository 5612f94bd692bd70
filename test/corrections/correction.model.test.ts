import { describe, expect, it } from 'vitest';
import { correctionMachine } from '../../machines/correction.js';
import { runModel } from '../harness/index.js';
import { expectCorrection, project, samples, variants } from './correctionModelSpec.js';

describe('correction statechart, model-based', () => {
  it('replays every generated path and covers every state and transition', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 'correction',
      machine: correctionMachine,
      variants,
      events: samples,
      oracle: expectCorrection,
      project,
    });
    expect(failures).toEqual([]);
    expect(paths.length).toBeGreaterThan(10);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(paths.length * 5);
  });
});
