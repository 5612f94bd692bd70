import { cancel, enqueueActions, raise, setup, type SnapshotFrom } from 'xstate';
import type { SkullEvent } from './skull.js';

/**
 * A Skull fleet's supervisor (SKULL_FLEET_PREFIX): which device actors live, when one is spawned,
 * when one is stopped. One device actor per device id, each the `skull` chart with its own breaker,
 * debounce, in-flight bound, retained config and outbox.
 *
 * - `device.input` (an input for one device): a live device gets it and its idle timer restarts;
 *   an unknown one is spawned first, if there is room (`maxActors`); at the bound the device idle
 *   the longest is stopped to make room; when every live device is busy the input is refused
 *   (counted, logged by the wiring) — memory stays bounded, nothing is queued outside the actors.
 * - `device.idle` fires `idleStopMs` after a device's last input (a delayed event per device,
 *   cancelled and re-armed on each input). A device still busy (a turn running, replies kept for
 *   the broker) is given another period; otherwise it is stopped. Its retained config is given
 *   again on the next spawn (the wiring keeps it).
 *
 * The chart decides; the wiring acts: `spawnDevice`, `stopDevice`, `forward`, `refuse` and the
 * `deviceBusy` guard are provided by the composition root (actors/skull/skullWiring.ts) over the
 * MQTT edge's device set (transports/mqtt/skullDevices.ts: every device is a
 * `skull:<prefix>/<id>` conversation of the Runtime like the others). Time is the actor system's
 * clock (SimulatedClock in tests).
 *
 * `devices` is a Map mutated in place: with 10,000 devices, copying a record on every message
 * would be the hot path. Insertion order is last-input order (an entry is re-inserted on input),
 * so the oldest idle device is the first non-busy one in iteration order.
 */

export interface FleetInput {
  maxActors: number;
  idleStopMs: number;
}

export interface FleetStats {
  spawned: number;
  idleStopped: number;
  evicted: number;
  refused: number;
}

export interface FleetContext {
  maxActors: number;
  idleStopMs: number;
  /** Live device ids, least recently active first. */
  devices: Map<string, true>;
  stats: FleetStats;
}

export type FleetEvent =
  | { type: 'device.input'; deviceId: string; event: SkullEvent }
  | { type: 'device.idle'; deviceId: string }
  /** Stop every device (shutdown). */
  | { type: 'fleet.stopAll' };

/** What the wiring provides for the chart's actions and guard: the device side of its decisions. */
export interface FleetHooks {
  spawnDevice(deviceId: string): void;
  stopDevice(deviceId: string, why: string): void;
  forward(deviceId: string, event: SkullEvent): void;
  refuse(deviceId: string, live: number): void;
  deviceBusy(deviceId: string): boolean;
}

const idleTimer = (deviceId: string) => `idle:${deviceId}`;

function oldestIdle(devices: Map<string, true>, busy: (id: string) => boolean): string | undefined {
  for (const id of devices.keys()) if (!busy(id)) return id;
  return undefined;
}

export const skullFleetMachine = setup({
  types: {
    input: {} as FleetInput,
    context: {} as FleetContext,
    events: {} as FleetEvent,
  },
  actions: {
    /** Provided by the wiring: start the device's actor and give it its retained config. */
    spawnDevice: (_, _params: { deviceId: string }) => {},
    /** Provided by the wiring: stop the device's actor. */
    stopDevice: (_, _params: { deviceId: string; why: 'idle' | 'evicted' | 'shutdown' }) => {},
    /** Provided by the wiring: send the input to the device's actor. */
    forward: (_, _params: { deviceId: string; event: SkullEvent }) => {},
    /** Provided by the wiring: log and count a refused input. */
    refuse: (_, _params: { deviceId: string; live: number }) => {},
  },
  guards: {
    /** Provided by the wiring: a turn running or replies kept for the broker. */
    deviceBusy: (_, _params: { deviceId: string }) => false,
  },
  delays: {
    idleStop: ({ context }) => context.idleStopMs,
  },
}).createMachine({
  id: 'skullFleet',
  description: 'The devices of one fleet: starts a device actor on its first input, stops idle ones, and keeps their number under the limit.',
  context: ({ input }) => ({
    maxActors: input.maxActors,
    idleStopMs: input.idleStopMs,
    devices: new Map(),
    stats: { spawned: 0, idleStopped: 0, evicted: 0, refused: 0 },
  }),
  initial: 'serving',
  states: {
    serving: {
      description: 'Inputs reach their device, spawned on the first one; idle devices are stopped, the oldest idle evicted at the bound.',
      on: {
        'device.input': {
          actions: enqueueActions(({ context, event, enqueue, check }) => {
            const { deviceId } = event;
            const busy = (id: string) => check({ type: 'deviceBusy', params: { deviceId: id } });
            if (!context.devices.has(deviceId)) {
              if (context.devices.size >= context.maxActors) {
                const victim = oldestIdle(context.devices, busy);
                if (victim === undefined) {
                  enqueue.assign({ stats: { ...context.stats, refused: context.stats.refused + 1 } });
                  enqueue({ type: 'refuse', params: { deviceId, live: context.devices.size } });
                  return;
                }
                enqueue(cancel(idleTimer(victim)));
                enqueue({ type: 'stopDevice', params: { deviceId: victim, why: 'evicted' } });
                context.devices.delete(victim);
                enqueue.assign({ stats: { ...context.stats, evicted: context.stats.evicted + 1 } });
              }
              enqueue({ type: 'spawnDevice', params: { deviceId } });
              enqueue.assign(({ context: c }) => ({ stats: { ...c.stats, spawned: c.stats.spawned + 1 } }));
            } else {
              enqueue(cancel(idleTimer(deviceId)));
            }
            // Re-inserted: the Map's order is last-input order (the oldest idle comes first).
            context.devices.delete(deviceId);
            context.devices.set(deviceId, true);
            enqueue({ type: 'forward', params: { deviceId, event: event.event } });
            enqueue(raise({ type: 'device.idle', deviceId }, { delay: 'idleStop', id: idleTimer(deviceId) }));
          }),
        },
        'device.idle': {
          actions: enqueueActions(({ context, event, enqueue, check }) => {
            const { deviceId } = event;
            if (!context.devices.has(deviceId)) return;
            if (check({ type: 'deviceBusy', params: { deviceId } })) {
              // Still answering (or holding replies for the broker): look again one period later.
              enqueue(raise({ type: 'device.idle', deviceId }, { delay: 'idleStop', id: idleTimer(deviceId) }));
              return;
            }
            context.devices.delete(deviceId);
            enqueue({ type: 'stopDevice', params: { deviceId, why: 'idle' } });
            enqueue.assign({ stats: { ...context.stats, idleStopped: context.stats.idleStopped + 1 } });
          }),
        },
        'fleet.stopAll': { target: 'stopped' },
      },
    },
    stopped: {
      description: 'Shutdown: every live device is stopped.',
      type: 'final',
      entry: enqueueActions(({ context, enqueue }) => {
        for (const deviceId of context.devices.keys()) {
          enqueue(cancel(idleTimer(deviceId)));
          enqueue({ type: 'stopDevice', params: { deviceId, why: 'shutdown' } });
        }
        context.devices.clear();
      }),
    },
  },
});

/** Live device ids, least recently active first. */
export function liveDevices(ctx: FleetContext): string[] {
  return [...ctx.devices.keys()];
}

type FleetSnapshot = SnapshotFrom<typeof skullFleetMachine>;

/** Selectors: what the edge's health reads of the supervisor, never its context directly. */
export function liveCount(snapshot: FleetSnapshot): number {
  return snapshot.context.devices.size;
}

export function maxActors(snapshot: FleetSnapshot): number {
  return snapshot.context.maxActors;
}

export function fleetStats(snapshot: FleetSnapshot): Readonly<FleetStats> {
  return snapshot.context.stats;
}
