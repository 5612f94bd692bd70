import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HandleWrites } from '../../actors/t2/handleWrites.js';

describe("Gemini's resumption handles, written together", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes the newest handle of every session in one write per interval, and nothing when none came', async () => {
    const writes: Array<ReadonlyArray<readonly [string, string]>> = [];
    const handles = new HandleWrites(async (entries) => void writes.push(entries), 250, () => undefined);
    handles.save('s1', 'h1');
    handles.save('s2', 'h1');
    handles.save('s1', 'h2');
    await vi.advanceTimersByTimeAsync(249);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes).toEqual([[['s1', 'h2'], ['s2', 'h1']]]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(writes).toHaveLength(1);
    handles.save('s2', 'h3');
    await vi.advanceTimersByTimeAsync(250);
    expect(writes[1]).toEqual([['s2', 'h3']]);
  });

  it('flush writes what is pending at once (a drain, before it hands sessions over); a failed write is reported, not thrown', async () => {
    const failures: number[] = [];
    let fail = true;
    const written: string[] = [];
    const handles = new HandleWrites(async (entries) => {
      if (fail) throw new Error('store away');
      written.push(...entries.map(([id, h]) => `${id}=${h}`));
    }, 250, (_err, n) => failures.push(n));
    handles.save('s1', 'h1');
    handles.save('s2', 'h1');
    await handles.flush();
    expect(failures).toEqual([2]);
    fail = false;
    handles.save('s1', 'h2');
    await handles.flush();
    expect(written).toEqual(['s1=h2']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(written).toEqual(['s1=h2']);
  });
});
