import { describe, expect, it } from 'vitest';
import { EngineSet } from '../../core/sharedEngines.js';

describe('engines several surfaces share', () => {
  it('one instance per name, whoever asks first creates it; stopped once, when core stops them', async () => {
    const engines = new EngineSet();
    const created: string[] = [];
    const stopped: string[] = [];
    const ask = (by: string) => engines.shared('checker', () => (created.push(by), { by }), async (e) => void stopped.push(e.by));
    const first = ask('corrections');
    const second = ask('t2');
    expect(second).toBe(first);
    expect(created).toEqual(['corrections']);
    expect(stopped).toEqual([]);
    await engines.stop();
    await engines.stop();
    expect(stopped).toEqual(['corrections']);
  });
});
