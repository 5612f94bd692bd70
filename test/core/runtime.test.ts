import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { Runtime } from '../../core/runtime.js';

const echo = createMachine({ id: 'echo', initial: 'idle', states: { idle: { on: { ping: 'pinged' } }, pinged: {} } });

describe('Runtime', () => {
  it('spawns conversations addressable by systemId, counts them by kind, and releases the id on stop', () => {
    const rt = new Runtime();
    const seen: string[] = [];
    rt.onInspect((e) => { if (e.type === '@xstate.event') seen.push(e.event.type); });
    const ref = rt.start('echo', 'dev-1', echo);
    expect(rt.get('dev-1')).toBe(ref);
    expect(rt.root.system.get('dev-1')).toBe(ref);
    ref.send({ type: 'ping' });
    expect(ref.getSnapshot().value).toBe('pinged');
    expect(seen).toContain('ping');
    expect(rt.countByKind()).toEqual({ echo: 1 });
    expect(() => rt.start('echo', 'dev-1', echo)).toThrow(/already exists/);
    rt.stop('dev-1');
    expect(rt.get('dev-1')).toBeUndefined();
    expect(rt.root.system.get('dev-1')).toBeUndefined();
    expect(ref.getSnapshot().status).toBe('stopped');
    rt.start('echo', 'dev-1', echo);
    expect(rt.countByKind()).toEqual({ echo: 1 });
    rt.shutdown();
  });
});
