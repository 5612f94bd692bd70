import { afterEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../core/runtime.js';
import { startWiredSkull } from '../../actors/skull/surface.js';
import { embeddedBroker, Listener, memoryLogger, ScriptedProvider, testConfig, uniquePrefix } from '../skull/support.js';
import { until } from './support.js';

/**
 * Stopping Skull on a signal (what `palabre skull` and `palabre serve` do with SIGTERM): inputs
 * unsubscribed, the turn in flight and the queued ones answered while time allows, the rest
 * logged as dropped. Asserts on what was published and logged.
 */
describe('skull drain on stop', () => {
  const open: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close().catch(() => undefined);
  });

  async function setup() {
    const broker = await embeddedBroker();
    open.push(() => broker.close());
    const prefix = uniquePrefix();
    const provider = new ScriptedProvider();
    provider.manual = true;
    const { logger, lines } = memoryLogger();
    const runtime = new Runtime();
    const svc = await startWiredSkull({ config: testConfig({ SKULL_TOPIC_PREFIX: prefix }), logger, runtime, provider, mqttUrl: broker.url, healthIntervalMs: 0, random: () => 0 });
    open.push(async () => {
      await svc.stop();
      runtime.shutdown();
    });
    const listener = await Listener.open(broker.url, [`${prefix}/ai/response`]);
    open.push(() => listener.close());
    const ask = (text: string) => listener.publish(`${prefix}/ai/request`, JSON.stringify({ ts_ms: 0, text }));
    return { svc, provider, listener, prefix, lines, ask, broker };
  }

  it('answers the turn in flight and the queued one before stopping; an input after the stop is not taken', async () => {
    const { svc, provider, listener, prefix, lines, ask } = await setup();
    await ask('Première question ?');
    await until(() => provider.waiting === 1, 'the first call');
    await ask('Deuxième question ?');
    await until(() => svc.health().queued === 1, 'the second queued');
    const stopped = svc.stop({ deadlineAt: Date.now() + 5000 });
    await ask('Trop tard ?');
    provider.release();
    await until(() => provider.waiting === 1, 'the queued turn runs');
    provider.release();
    await stopped;
    expect(await listener.waitFor(`${prefix}/ai/response`, 2)).toHaveLength(2);
    expect(provider.calls.map((c) => c.messages[0]!.content)).toEqual([expect.stringContaining('Première'), expect.stringContaining('Deuxième')]);
    expect(lines.find((l) => l.msg === 'skull drained')).toMatchObject({ drained: 2, cut: { inFlight: 0, queued: 0, kept: 0 } });
  });

  it('at the deadline, the queued turns are logged as dropped and the turn in flight as cut', async () => {
    const { svc, provider, lines, ask } = await setup();
    await ask('Une question longue ?');
    await until(() => provider.waiting === 1, 'the call');
    await ask('Une autre ?');
    await until(() => svc.health().queued === 1, 'queued');
    await svc.stop({ deadlineAt: Date.now() + 200 });
    expect(lines.filter((l) => l.msg === 'skull stop: queued turn dropped (shutdown deadline)')).toHaveLength(1);
    expect(lines.some((l) => l.msg === 'skull stop: the turn in flight was cut at the shutdown deadline')).toBe(true);
    expect(lines.find((l) => l.msg === 'skull drained')).toMatchObject({ drained: 0, cut: { inFlight: 1, queued: 1 } });
  });

  it('a clean stop leaves ai/health { ok: false, reason: "stopped" } retained and ends the connection without its last will', async () => {
    const { svc, provider, listener, prefix, ask, broker } = await setup();
    await ask('Une dernière ?');
    await until(() => provider.waiting === 1, 'the call');
    const stopped = svc.stop({ deadlineAt: Date.now() + 5000 });
    provider.release();
    await stopped;
    expect(await listener.waitFor(`${prefix}/ai/response`)).toHaveLength(1);
    expect(svc.client.connected).toBe(false);
    // What a device reading ai/health now finds: the clean stop, not the will's `offline`.
    const later = await Listener.open(broker.url, [`${prefix}/ai/health`]);
    open.push(() => later.close());
    expect(await later.waitFor(`${prefix}/ai/health`)).toEqual([{ ok: false, reason: 'stopped' }]);
  });
});
