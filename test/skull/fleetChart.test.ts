import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { liveDevices, skullFleetMachine } from '../../machines/skullFleet.js';

/**
 * The fleet supervisor chart alone (no MQTT): what it asks the wiring to do, in order, with
 * simulated time. `busy` plays the device snapshots the wiring reads.
 */
function rig(maxActors: number, idleStopMs = 1000) {
  const clock = new SimulatedClock();
  const calls: string[] = [];
  const busy = new Set<string>();
  const actor = createActor(
    skullFleetMachine.provide({
      actions: {
        spawnDevice: (_, p: { deviceId: string }) => void calls.push(`spawn ${p.deviceId}`),
        stopDevice: (_, p: { deviceId: string; why: string }) => void calls.push(`stop ${p.deviceId} ${p.why}`),
        forward: (_, p: { deviceId: string; event: { type: string } }) => void calls.push(`forward ${p.deviceId} ${p.event.type}`),
        refuse: (_, p: { deviceId: string; live: number }) => void calls.push(`refuse ${p.deviceId} (${p.live} live)`),
      },
      guards: { deviceBusy: (_, p: { deviceId: string }) => busy.has(p.deviceId) },
    }),
    { input: { maxActors, idleStopMs }, clock },
  ).start();
  const input = (deviceId: string) => actor.send({ type: 'device.input', deviceId, event: { type: 'ai.request', text: 'x' } });
  return { clock, calls, busy, actor, input, stats: () => actor.getSnapshot().context.stats, live: () => liveDevices(actor.getSnapshot().context) };
}

describe('skullFleet chart', () => {
  it('spawns on the first input only, forwards every input, keeps last-input order', () => {
    const r = rig(10);
    r.input('a');
    r.input('b');
    r.input('a');
    expect(r.calls).toEqual(['spawn a', 'forward a ai.request', 'spawn b', 'forward b ai.request', 'forward a ai.request']);
    expect(r.live()).toEqual(['b', 'a']);
    expect(r.stats()).toEqual({ spawned: 2, idleStopped: 0, evicted: 0, refused: 0 });
  });

  it('stops a device idleStopMs after its last input; each input re-arms its timer; busy → one more period', () => {
    const r = rig(10, 1000);
    r.input('a');
    r.clock.increment(900);
    r.input('a'); // re-armed: now due at 1900
    r.clock.increment(900);
    expect(r.live()).toEqual(['a']);
    r.busy.add('a');
    r.clock.increment(100); // due, but busy: looked at again at 2900
    expect(r.live()).toEqual(['a']);
    r.busy.delete('a');
    r.clock.increment(999);
    expect(r.live()).toEqual(['a']);
    r.clock.increment(1);
    expect(r.live()).toEqual([]);
    expect(r.calls.at(-1)).toBe('stop a idle');
    expect(r.stats().idleStopped).toBe(1);
    r.input('a'); // re-spawned
    expect(r.calls.at(-2)).toBe('spawn a');
  });

  it('at the bound: the longest idle device makes room; all busy → refused; an evicted device’s timer is cancelled', () => {
    const r = rig(2, 1000);
    r.input('a');
    r.input('b');
    r.busy.add('a');
    r.input('c'); // a is busy, b is the oldest idle
    expect(r.calls.slice(-3)).toEqual(['stop b evicted', 'spawn c', 'forward c ai.request']);
    r.busy.add('c');
    r.input('d');
    expect(r.calls.at(-1)).toBe('refuse d (2 live)');
    expect(r.live()).toEqual(['a', 'c']);
    expect(r.stats()).toEqual({ spawned: 3, idleStopped: 0, evicted: 1, refused: 1 });
    r.busy.clear();
    r.clock.increment(1000);
    // b's timer was cancelled with it: only a and c are stopped for idleness.
    expect(r.calls.filter((c) => c.endsWith(' idle'))).toEqual(['stop a idle', 'stop c idle']);
  });

  it('fleet.stopAll stops every live device and ends; later timers do nothing', () => {
    const r = rig(10, 1000);
    r.input('a');
    r.input('b');
    r.actor.send({ type: 'fleet.stopAll' });
    expect(r.calls.slice(-2)).toEqual(['stop a shutdown', 'stop b shutdown']);
    expect(r.actor.getSnapshot().status).toBe('done');
    r.clock.increment(5000);
    expect(r.calls.filter((c) => c.startsWith('stop'))).toHaveLength(2);
  });
});
