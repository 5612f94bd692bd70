import { describe, expect, it } from 'vitest';
import type { AnyActorRef, EventObject, InspectionEvent } from 'xstate';
import WebSocket from 'ws';
import { silentLogger } from '../../core/log.js';
import { Runtime } from '../../core/runtime.js';
import type { T2Emitted } from '../../machines/t2live.js';
import { attachT2LiveSocket } from '../../transports/ws/t2liveSocket.js';
import { useBareServer } from './bareServerSuite.js';
import { runModel } from '../harness/index.js';
import { expectT2 } from './t2Oracle.js';
import { controlled, recorder, samples, serialize, variants, wiredForModel } from './t2ModelSpec.js';

/**
 * The `t2live` paths replayed through the real WebSocket edge (transports/ws/t2liveSocket.ts): the
 * candidate's events travel as frames (`text`, `end`, binary audio) through its zod validation,
 * and what the oracle checks is what the client's socket received (JSON frames, binary audio,
 * the close code), not the chart's emitted events. The interlocutor's own events and the
 * transport's `client.activity` are sent to the actor directly (they do not come from the client);
 * so is `client.disconnected`, which the edge sends when the socket closes: the socket stays open
 * so that what the server writes afterwards is still observed.
 */
const bare = useBareServer();

/** A frame the client received, as the chart's emitted event it serializes. */
function fromFrame(data: WebSocket.RawData, isBinary: boolean): T2Emitted {
  if (isBinary) return { type: 'client.audio', pcm: new Uint8Array(data as Buffer) };
  const m = JSON.parse(String(data)) as Record<string, unknown> & { type: string };
  const { type, ...rest } = m;
  return { type: `client.${type === 'state' ? 'state' : type}`, ...rest } as T2Emitted;
}

describe('t2live model through the WebSocket edge', () => {
  it('replays every generated path through the socket; the oracle reads what the client received', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 't2live',
      machine: wiredForModel,
      controlled,
      oracle: expectT2,
      variants,
      serializeState: serialize,
      simplePaths: false,
      events: samples,
      start: async ({ machine, input, clock, inspect }) => {
        const runtime = new Runtime({ clock });
        runtime.onInspect(inspect);
        const world = recorder.reset();
        world.edge = true;
        const socket = attachT2LiveSocket({
          server: bare.server,
          runtime,
          logger: silentLogger(),
          maxFrameBytes: 64_000,
          maxSessions: 4,
          defaultMode: 'text',
          wire: () => ({ logic: machine, input }),
        });
        const ws = new WebSocket(`ws://127.0.0.1:${bare.port}/t2/live?sujet=club-de-sport&mode=text`);
        ws.on('message', (data, isBinary) => world.emitted.push(fromFrame(data, isBinary)));
        const closed = new Promise<void>((resolve) =>
          ws.on('close', (code, reason) => {
            world.emitted.push({ type: 'client.close', code, reason: reason.toString() });
            resolve();
          }),
        );
        await new Promise<void>((resolve, reject) => {
          ws.once('open', () => resolve());
          ws.once('error', reject);
        });
        const entry = runtime.list().find((e) => e.systemId.startsWith('t2:'));
        if (!entry) throw new Error('the edge started no session');
        const actor = runtime.get(entry.systemId) as AnyActorRef;
        // Not a frame: the edge acts on it (re-attaches the socket), so it is recorded as emitted.
        actor.on('client.handover', (e: T2Emitted) => world.emitted.push(e));
        world.tags = () => {
          const snap = actor.getSnapshot() as { hasTag(tag: string): boolean };
          return { awaitingClient: snap.hasTag('awaitingClient'), resumable: snap.hasTag('resumable') };
        };
        const delivered = (type: string) =>
          new Promise<void>((resolve) => {
            const off = runtime.onInspect((ev: InspectionEvent) => {
              if (ev.type === '@xstate.event' && ev.actorRef === actor && ev.event.type === type) {
                off();
                resolve();
              }
            });
          });
        const frame = (event: EventObject): string | Buffer | null => {
          const e = event as EventObject & { text?: string; pcm?: Uint8Array };
          if (event.type === 'client.text') return JSON.stringify({ type: 'text', text: e.text });
          if (event.type === 'client.end') return JSON.stringify({ type: 'end' });
          if (event.type === 'client.audio') return Buffer.from(e.pcm!);
          return null;
        };
        return {
          actor,
          world,
          send: async (event: EventObject) => {
            const data = frame(event);
            if (data === null || ws.readyState !== ws.OPEN) return void actor.send(event);
            const arrived = delivered(event.type);
            ws.send(data);
            await arrived;
          },
          // Frames written before the pong arrive before it (one TCP stream).
          sync: async () => {
            if (ws.readyState === ws.OPEN) await new Promise<void>((resolve) => ws.once('pong', () => resolve()).ping());
            else if (ws.readyState === ws.CLOSING) await closed;
          },
          stop: async () => {
            ws.terminate();
            runtime.shutdown();
            await socket.close();
          },
        };
      },
    });
    expect(failures.length, JSON.stringify(failures.slice(0, 3), null, 2)).toBe(0);
    expect(paths.length).toBeGreaterThan(20);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(paths.length * 10);
  }, 300_000);
});
