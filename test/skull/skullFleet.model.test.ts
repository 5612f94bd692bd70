import { describe, expect, it } from 'vitest';
import { createActor, type AnyMachineSnapshot, type EventObject } from 'xstate';
import { liveDevices, skullFleetMachine, type FleetContext, type FleetEvent, type FleetInput } from '../../machines/skullFleet.js';
import { runModel } from '../harness/index.js';
import type { OracleContext } from '../harness/replay.js';

/**
 * Model-based test of the `skullFleet` chart (the fleet supervisor of SKULL_FLEET_PREFIX): paths
 * generated from the production machine, replayed on a real actor with a SimulatedClock. The
 * oracle judges what the wiring was asked, from the fleet's spec (docs/skull.md), not from the chart: live
 * devices never exceed the bound, every input reaches a live device or is refused only at the
 * bound, every live device has exactly one idle timer armed, nothing stays live after a stop.
 *
 * A device's idle stop is a delayed event per device; which one is due first depends on how much
 * time passed, which the chart's states do not record. So the model picks which device's timer
 * fires (marked `model: true`, so the harness does not wait for it), the clock stands still
 * (`stepMs: 0`), and the replay fires it as the scheduler would: the pending timer is taken out
 * of the schedule and its event delivered. The oracle checks the timers the actor armed and
 * cancelled; timers firing on their own, by time, is test/skull/fleetChart.test.ts's.
 *
 * The chart keeps its live devices in a Map mutated in place (10,000 devices: no copy per
 * message). The traversal needs snapshots that do not change under it, so the model's
 * `transition` hands the chart a copy of the Map; the replayed actor runs the chart as is.
 * Devices named `busy…` play a device still answering (the `deviceBusy` guard).
 */
type Call = { kind: 'spawn' | 'stop' | 'forward' | 'refuse'; deviceId: string };
/** The replayed path's calls (paths replay one at a time; coverage needs this very machine object). */
let current: Call[] = [];
const record = (kind: Call['kind']) => (_: unknown, p: { deviceId: string }) => void current.push({ kind, deviceId: p.deviceId });
const provided = skullFleetMachine.provide({
  guards: { deviceBusy: (_, p: { deviceId: string }) => p.deviceId.startsWith('busy') },
  actions: { spawnDevice: record('spawn'), stopDevice: record('stop'), forward: record('forward'), refuse: record('refuse') },
});
type Fleet = typeof provided;
const model: Fleet = Object.create(provided) as Fleet;
model.transition = (snapshot, event, scope) => {
  const s = snapshot as unknown as AnyMachineSnapshot & { context: FleetContext };
  const copy = { ...s, context: { ...s.context, devices: new Map(s.context.devices) } };
  return provided.transition(copy as unknown as typeof snapshot, event, scope);
};

const IDLE_MS = 60_000;
const live = (s: AnyMachineSnapshot): string[] => liveDevices(s.context as FleetContext);
const input = (deviceId: string) => ({ deviceId, event: { type: 'ai.request', text: 'Bonjour' } });

interface World {
  calls: Call[];
  /** Device ids of the idle timers armed in the actor system now. */
  timers: () => string[];
}

/** The spec's rules, on the calls the wiring received. */
function fleetOracle(max: number) {
  return ({ events, world, check, end }: OracleContext): void => {
    const { calls, timers } = world as World;
    const alive = new Set<string>();
    for (const c of calls) {
      if (c.kind === 'spawn') {
        check(!alive.has(c.deviceId), `${c.deviceId} spawned while already live`);
        alive.add(c.deviceId);
        check(alive.size <= max, `live devices ${alive.size} above the bound ${max}`);
      } else if (c.kind === 'stop') {
        check(alive.delete(c.deviceId), `${c.deviceId} stopped while not live`);
      } else if (c.kind === 'forward') {
        check(alive.has(c.deviceId), `input forwarded to ${c.deviceId}, not live`);
      } else {
        check(alive.size === max, `${c.deviceId} refused with ${alive.size} of ${max} live`);
      }
    }
    const inputs = events.filter((e) => e.type === 'device.input').length;
    check(calls.filter((c) => c.kind === 'forward' || c.kind === 'refuse').length === inputs, 'every input is forwarded or refused, once');
    const armed = timers().sort();
    check(JSON.stringify(armed) === JSON.stringify([...alive].sort()), `idle timers armed for ${JSON.stringify(armed)}, live ${JSON.stringify([...alive])}`);
    if (end && events.some((e) => e.type === 'fleet.stopAll')) check(alive.size === 0, 'devices still live after fleet.stopAll');
  };
}

async function runFleet(name: string, max: number, devices: string[]) {
  return runModel({
    name: 'skullFleet',
    machine: model,
    variants: [{ name, input: (): FleetInput => ({ maxActors: max, idleStopMs: IDLE_MS }) }],
    events: {
      'device.input': devices.map(input),
      'device.idle': (s: AnyMachineSnapshot) => live(s).map((deviceId) => ({ deviceId, model: true })),
    },
    serializeState: (s) => JSON.stringify({ value: s.value, live: live(s) }),
    project: (s) => ({ value: s.value, live: live(s) }),
    describeEvent: (e: EventObject) => (e.type === 'fleet.stopAll' ? 'stopAll' : `${e.type.slice(7)} ${(e as EventObject & { deviceId?: string }).deviceId ?? ''}`),
    stepMs: 0,
    start: ({ machine, input: fleetInput, clock, inspect }) => {
      const calls: Call[] = [];
      current = calls;
      const actor = createActor(machine, { input: fleetInput, clock, inspect }).start();
      const scheduled = (): Record<string, { event: EventObject & { deviceId?: string } }> =>
        (actor.system.getSnapshot() as unknown as { _scheduledEvents: Record<string, { event: EventObject & { deviceId?: string } }> })._scheduledEvents;
      const timers = (): string[] => Object.values(scheduled()).filter((e) => e.event.type === 'device.idle').map((e) => e.event.deviceId ?? '');
      const send = (event: EventObject): void => {
        const e = event as EventObject & { deviceId?: string; model?: boolean };
        // The harness's events come from the chart's own event types (the generated paths).
        if (e.type !== 'device.idle' || !e.model) return actor.send(event as FleetEvent);
        // What the scheduler does when the timer is due: out of the schedule, then delivered.
        actor.system.scheduler.cancel(actor, `idle:${e.deviceId ?? ''}`);
        actor.send({ type: 'device.idle', deviceId: e.deviceId ?? '' });
      };
      return { actor, send, world: { calls, timers } satisfies World };
    },
    oracle: fleetOracle(max),
  });
}

describe('skullFleet model', () => {
  it('replays every generated path: spawn on first input, idle stop, eviction at the bound, refusal when all are busy, stop all', async () => {
    const quiet = await runFleet('3 devices, bound 2', 2, ['d1', 'd2', 'd3']);
    const busy = await runFleet('busy devices, bound 2', 2, ['busy1', 'busy2', 'd1']);
    for (const r of [quiet, busy]) {
      expect(r.failures).toEqual([]);
      expect(r.coverage.injectedAfterEvents).toBe(0);
    }
    expect(quiet.paths.length).toBeGreaterThan(10);
    // Both variants together reach every state and transition of the chart.
    expect(busy.written.states.uncovered).toEqual([]);
    expect(busy.written.transitions.uncovered).toEqual([]);
    expect(busy.written.oracleChecks).toBeGreaterThan(0);
  });
});
