import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, tuneGcForServe } from '../../core/gcTuning.js';

describe('tuneGcForServe (palabre serve’s V8 heap growing factor)', () => {
  it('sets the factor when node was started without one', () => {
    expect(HEAP_GROWING_PERCENT).toBe(100);
    expect(tuneGcForServe([])).toBe(true);
    expect(tuneGcForServe(['--max-old-space-size=512', '--enable-source-maps'])).toBe(true);
  });

  it('leaves a factor given on node’s command line alone, in either spelling', () => {
    expect(tuneGcForServe(['--heap-growing-percent=50'])).toBe(false);
    expect(tuneGcForServe(['--heap_growing_percent=30'])).toBe(false);
  });
});
