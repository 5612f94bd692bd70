import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../core/config/load.js';
import { collectAfterWarmUp } from '../../../core/tuning/gcAfterWarmUp.js';
import { tuneGcForServe } from '../../../core/tuning/gcFlagsForServe.js';
import { tuneJitForSkull } from '../../../core/tuning/jitBudgetForSkull.js';
import { applyTuningOff, parseTuningOff, setTuningOff, TUNINGS, tuningOn } from '../../../core/tuning/switches.js';

afterEach(() => setTuningOff([]));

describe('TUNING_OFF (the runtime tuning’s off switches)', () => {
  it('is `none` by default: every piece on', () => {
    const config = loadConfig([], { env: {}, dotenvPath: null });
    expect(config.TUNING_OFF).toBe('none');
    expect(applyTuningOff(config.TUNING_OFF)).toEqual([]);
    for (const t of TUNINGS) expect(tuningOn(t)).toBe(true);
  });

  it('takes a comma list or `all`, and turns off exactly what it names', () => {
    const config = loadConfig([], { env: { TUNING_OFF: ' gc-flags , mqtt-writes-per-turn' }, dotenvPath: null });
    expect(applyTuningOff(config.TUNING_OFF)).toEqual(['gc-flags', 'mqtt-writes-per-turn']);
    expect(TUNINGS.filter((t) => !tuningOn(t))).toEqual(['gc-flags', 'mqtt-writes-per-turn']);
    expect(applyTuningOff('all')).toEqual([...TUNINGS]);
    expect(applyTuningOff('none')).toEqual([]);
    expect(TUNINGS.every(tuningOn)).toBe(true);
  });

  it('refuses an unknown name with the list of known ones', () => {
    expect(parseTuningOff('gc,jit-budget').unknown).toEqual(['gc']);
    expect(() => loadConfig([], { env: { TUNING_OFF: 'gc' }, dotenvPath: null })).toThrow(ConfigError);
    expect(() => loadConfig([], { env: { TUNING_OFF: 'gc' }, dotenvPath: null })).toThrow(/TUNING_OFF.*chart-events-after-audio/s);
  });

  it('gc-flags: palabre serve sets no V8 flag', () => {
    setTuningOff(['gc-flags']);
    expect(tuneGcForServe([])).toEqual([]);
    setTuningOff([]);
    expect(tuneGcForServe([])).toHaveLength(2);
  });

  it('jit-budget: palabre skull leaves V8’s interrupt budget alone', () => {
    setTuningOff(['jit-budget']);
    expect(tuneJitForSkull([])).toBe(false);
    setTuningOff([]);
    expect(tuneJitForSkull([])).toBe(true);
  });

  it('gc-after-warmup: no collection once ready', () => {
    setTuningOff(['gc-after-warmup']);
    expect(collectAfterWarmUp()).toBe(false);
    setTuningOff([]);
    expect(collectAfterWarmUp()).toBe(true);
  });
});
