import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { silentLogger } from '../../core/log.js';
import { type SkullService } from '../../transports/mqtt/skullEdge.js';
import { startWiredSkull } from '../../actors/skull/surface.js';
import type { GenerateRequest, GenerateResult, LlmProvider } from '../../machines/llmPort.js';
import { embeddedBroker, Listener, ScriptedProvider, testConfig, uniquePrefix, type TestBroker } from './support.js';

/**
 * The spec's load tests through a real broker: a burst of 5 requests, and 1 request/s for 10 s
 * with a slow model, on simulated time (the model's latency runs on the SimulatedClock, so the
 * 10 s take milliseconds). The queue must stay bounded (≤ maxInFlight) and drops be counted.
 */

/** A model that answers `latencyMs` later on the given clock, and echoes the question. */
class ClockedProvider implements LlmProvider {
  readonly name = 'offline' as const;
  readonly calls: string[] = [];
  constructor(private readonly clock: SimulatedClock, private readonly latencyMs: number) {}
  generate(req: GenerateRequest): Promise<GenerateResult> {
    const q = String(req.offlineHints?.user ?? '');
    this.calls.push(q);
    return new Promise((resolve) => {
      this.clock.setTimeout(() => resolve({
        text: `Réponse à ${q}.`,
        model: req.model,
        provider: 'offline',
        usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: this.latencyMs },
      }), this.latencyMs);
    });
  }
}

describe('skull load on a real broker, simulated time', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await embeddedBroker();
  });
  afterAll(async () => broker?.close());

  async function rig(provider: LlmProvider, clock?: SimulatedClock) {
    const prefix = uniquePrefix();
    const runtime = new Runtime(clock ? { clock } : {});
    const svc = await startWiredSkull({
      config: testConfig({ SKULL_TOPIC_PREFIX: prefix }),
      logger: silentLogger(),
      runtime,
      provider,
      mqttUrl: broker.url,
      healthIntervalMs: 0,
      ...(clock ? { now: () => clock.now() } : {}),
    });
    const listener = await Listener.open(broker.url, [`${prefix}/ai/response`]);
    return { svc, listener, prefix, close: async () => { await listener.close(); await svc.stop(); runtime.shutdown(); } };
  }

  /** Resolves when the device's turn region is idle (the last publish acknowledged). */
  function idle(svc: SkullService): Promise<void> {
    return new Promise((resolve) => {
      if (svc.actor.getSnapshot().matches({ turn: 'idle' })) return resolve();
      const sub = svc.actor.subscribe((s) => {
        if (s.matches({ turn: 'idle' })) {
          sub.unsubscribe();
          resolve();
        }
      });
    });
  }

  /** Resolves once the actor has taken one more input (queued, dropped, started or ignored). */
  function inputTaken(svc: SkullService): Promise<void> {
    const count = () => {
      const c = svc.actor.getSnapshot().context;
      return c.stats.dropped + c.queue.length + c.stats.responses + (c.current ? 1 : 0);
    };
    const start = count();
    return new Promise((resolve) => {
      const sub = svc.actor.subscribe(() => {
        if (count() !== start) {
          sub.unsubscribe();
          resolve();
        }
      });
    });
  }

  it('burst of 5 ai/request while the model is busy → 3 answered in order, 2 dropped and counted', async () => {
    const provider = new ScriptedProvider();
    provider.manual = true;
    const { svc, listener, prefix, close } = await rig(provider);
    try {
      for (let i = 1; i <= 5; i++) {
        const taken = inputTaken(svc);
        await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: `Question ${i}` }));
        await taken;
      }
      expect(svc.health()).toMatchObject({ in_flight: 3, queued: 2, dropped: 2 });
      for (let i = 0; i < 3; i++) {
        while (provider.waiting === 0) await new Promise((r) => setImmediate(r));
        provider.release();
        await listener.waitFor(`${prefix}/ai/response`, i + 1);
      }
      expect(provider.calls.map((c) => c.offlineHints?.user)).toEqual(['Question 1', 'Question 2', 'Question 3']);
      await idle(svc);
      expect(svc.health()).toMatchObject({ in_flight: 0, dropped: 2 });
    } finally {
      await close();
    }
  });

  it('1 request/s for 10 s with a 2.5 s model: bounded queue, controlled drops, every accepted one answered', async () => {
    const clock = new SimulatedClock();
    const provider = new ClockedProvider(clock, 2500);
    const { svc, listener, prefix, close } = await rig(provider, clock);
    let maxQueued = 0;
    const sub = svc.actor.subscribe((s) => {
      maxQueued = Math.max(maxQueued, s.context.queue.length);
    });
    const settle = async () => {
      // Let the provider's promise and the broker round trip (publishReply's QoS 1 ack) finish
      // before moving the clock on: publishing is the only state that waits on the network.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      if (svc.actor.getSnapshot().matches({ turn: 'publishing' })) {
        await new Promise<void>((resolve) => {
          const sub = svc.actor.subscribe((snap) => {
            if (!snap.matches({ turn: 'publishing' })) {
              sub.unsubscribe();
              resolve();
            }
          });
        });
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      }
    };
    try {
      for (let s = 0; s < 10; s++) {
        const taken = inputTaken(svc);
        await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: `Q${s}` }));
        await taken;
        for (let ms = 0; ms < 1000; ms += 250) {
          clock.increment(250);
          await settle();
        }
      }
      for (let ms = 0; ms < 10_000 && !svc.actor.getSnapshot().matches({ turn: 'idle' }); ms += 250) {
        clock.increment(250);
        await settle();
      }
      const h = svc.health();
      const answered = provider.calls.length;
      await listener.waitFor(`${prefix}/ai/response`, answered);
      expect(maxQueued).toBeLessThanOrEqual(2); // + the one running = 3 in flight at most
      expect(h.dropped).toBeGreaterThan(0);
      expect(answered + h.dropped).toBe(10);
      expect(h.in_flight).toBe(0);
      // Sustained rate with a 2.5 s model is 0.4/s: 4–5 of 10 answered, in arrival order.
      expect(answered).toBeGreaterThanOrEqual(4);
      expect(provider.calls).toEqual([...provider.calls].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))));
      console.log(`load 1 req/s × 10 s, 2.5 s model: answered ${answered}, dropped ${h.dropped}, max queued ${maxQueued}`);
    } finally {
      sub.unsubscribe();
      await close();
    }
  });
});
