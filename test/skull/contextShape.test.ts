import { afterEach, describe, expect, it } from 'vitest';
import { startChart, type ChartRig } from './chartHarness.js';

/**
 * XState's `assign` copies the whole context with `Object.assign({}, context, update)` at every
 * assignment (several per turn). V8 turns an object built that way into a dictionary once it holds
 * 20 properties, and every copy then costs ≈ 4 µs instead of ≈ 0.2 µs (measured in
 * bench/journal/2026-12-performance.md, on "Skull: one actor per turn, the provider call"): the skull's context must stay below that.
 */
let rig: ChartRig | undefined;
afterEach(() => rig?.stop());

describe('skull context shape', () => {
  it('keeps fewer than 20 top-level fields, through a whole turn', async () => {
    rig = startChart();
    rig.actor.send({ type: 'ai.request', text: 'Bonjour' });
    await rig.flush();
    expect(rig.published).toHaveLength(1);
    expect(Object.keys(rig.actor.getSnapshot().context).length).toBeLessThan(20);
  });
});
