import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { silentLogger, type Logger } from '../../core/log.js';
import { type SkullFleet } from '../../transports/mqtt/skullEdge.js';
import { startWiredSkullFleet } from '../../actors/skull/surface.js';
import { fnv1a, inShard, parseFleetTopic } from '../../transports/mqtt/skullFleetTopics.js';
import { deviceIdSchema, shardSchema } from '../../transports/mqtt/skullEdgeConfig.js';
import { LlmError, type GenerateRequest, type GenerateResult } from '../../machines/llmPort.js';
import { APOLOGY_TEXT } from '../../machines/skullTypes.js';
import { requireBinary } from '../support/requires.js';
import { embeddedBroker, Listener, memoryLogger, mosquittoBroker, ScriptedProvider, testConfig, uniquePrefix, type TestBroker } from './support.js';

/**
 * Skull fleets (SKULL_FLEET_PREFIX): one actor per device, spawned on its first input, stopped
 * after SKULL_IDLE_STOP_S of silence (SimulatedClock: no sleeps), re-spawned with its retained
 * config; the bound on live actors; device ids checked at the edge; two shards on mosquitto.
 */
const mosquitto = requireBinary('mosquitto', 'mosquitto');

/** Fails every call whose user text contains "panne" (a broken device's questions); answers the others. */
class SelectiveProvider extends ScriptedProvider {
  override generate(req: GenerateRequest): Promise<GenerateResult> {
    const text = JSON.stringify(req.messages);
    if (text.includes('panne')) {
      this.calls.push(req);
      return Promise.reject(new LlmError('server', 'HTTP 503', { provider: 'offline', status: 503 }));
    }
    return super.generate(req);
  }
}

describe('fleet topics, ids and shards (unit)', () => {
  it('device ids: wildcards, empty, too long, reserved and non-ASCII ids are refused with a reason', () => {
    for (const bad of ['', 'a+b', 'a#', 'a/b', 'x'.repeat(65), '_service', 'dév', 'a b']) {
      expect(deviceIdSchema.safeParse(bad).success, bad).toBe(false);
    }
    for (const good of ['skull-1', 'salon.2', 'A_b-9', 'x'.repeat(64)]) expect(deviceIdSchema.parse(good)).toBe(good);
    expect(parseFleetTopic('p', 'p//asr/text')).toMatchObject({ ok: false, reason: 'invalid_device_id', detail: expect.stringContaining('device id is empty') });
    expect(parseFleetTopic('p', 'p/s1/asr/text')).toEqual({ ok: true, deviceId: 's1', input: 'asr/text' });
    expect(parseFleetTopic('p', 'p/s1/skull/config/prompt_system')).toEqual({ ok: true, deviceId: 's1', input: 'skull/config/prompt_system' });
    expect(parseFleetTopic('p', 'p/s1/ai/response')).toMatchObject({ ok: false, reason: 'not_fleet_topic' });
  });

  it('FNV-1a 32-bit matches the reference vectors; shards split ids and `i/N` is validated', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    const ids = Array.from({ length: 1000 }, (_, i) => `skull-${i}`);
    const counts = [0, 1, 2].map((index) => ids.filter((id) => inShard(id, { index, count: 3 })).length);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1000);
    for (const c of counts) expect(c).toBeGreaterThan(280);
    expect(shardSchema.parse('1/4')).toEqual({ index: 1, count: 4 });
    for (const bad of ['4/4', '1', '-1/2', '0/0', 'a/b']) expect(shardSchema.safeParse(bad).success, bad).toBe(false);
  });

  it('config keys: SKULL_FLEET_SHARD defaults to 0/1; a wildcard prefix or bad shard is a config error', () => {
    expect(testConfig().SKULL_FLEET_SHARD).toEqual({ index: 0, count: 1 });
    expect(() => testConfig({ SKULL_FLEET_PREFIX: 'a/+' })).toThrow(/SKULL_FLEET_PREFIX/);
    expect(() => testConfig({ SKULL_FLEET_SHARD: '2/2' })).toThrow(/SKULL_FLEET_SHARD/);
  });
});

describe('skull fleet on the embedded broker', () => {
  let broker: TestBroker;
  const open: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    broker = await embeddedBroker();
  });
  afterAll(async () => broker?.close());
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close().catch(() => undefined);
  });

  async function start(provider: ScriptedProvider, env: Record<string, string> = {}, logger: Logger = silentLogger()) {
    const prefix = uniquePrefix();
    const clock = new SimulatedClock();
    const runtime = new Runtime({ clock });
    const config = testConfig({ SKULL_FLEET_PREFIX: prefix, SKULL_FLEET_INSTANCE: 'test-1', SKULL_IDLE_STOP_S: '60', LLM_MAX_RETRIES: '0', BREAKER_FAILURES: '2', ...env });
    const listener = await Listener.open(broker.url, [`${prefix}/+/ai/#`, `${prefix}/_service/#`]);
    open.push(listener);
    return { prefix, clock, runtime, listener, config, provider, logger };
  }
  async function serve(rig: Awaited<ReturnType<typeof start>>): Promise<SkullFleet> {
    const fleet = await startWiredSkullFleet({ config: rig.config, logger: rig.logger, runtime: rig.runtime, provider: rig.provider, mqttUrl: broker.url, healthIntervalMs: 0, now: () => rig.clock.now(), random: () => 0 });
    open.push({ close: async () => { await fleet.stop(); rig.runtime.shutdown(); } });
    return fleet;
  }
  const ask = (l: Listener, prefix: string, id: string, text: string, topic = 'ai/request') => l.publish(`${prefix}/${id}/${topic}`, JSON.stringify({ ts_ms: 0, text }));

  it('two devices: one actor each (root conversations), own topics, own debounce, own breaker', async () => {
    const rig = await start(new SelectiveProvider());
    const fleet = await serve(rig);
    const { listener: l, prefix: p } = rig;

    await ask(l, p, 'alpha', 'Bonjour', 'asr/text');
    await l.waitFor(`${p}/alpha/ai/usage`);
    await waitUntil(() => fleet.health().busy_actors === 0);
    // The debounce window is still open (simulated time stands still): the same utterance is a
    // duplicate for alpha; the same words from beta are beta's first.
    await ask(l, p, 'alpha', 'bonjour !', 'asr/text');
    await ask(l, p, 'beta', 'Bonjour', 'asr/text');
    await l.waitFor(`${p}/beta/ai/usage`);
    await waitUntil(() => fleet.device('alpha')!.getSnapshot().context.stats.duplicates === 1);
    expect(rig.runtime.countByKind()).toMatchObject({ skull: 2 });
    expect(fleet.device('alpha')!.getSnapshot().context.stats.duplicates).toBe(1);
    expect(fleet.device('beta')!.getSnapshot().context.stats.duplicates).toBe(0);
    const [caps] = await l.waitFor(`${p}/alpha/ai/capabilities`);
    expect(caps).toEqual({ models: ['gpt-5-mini', 'gpt-5-nano'], lang: 'fr', max_tokens: 512 });

    // alpha's model calls fail: its breaker opens (2 failures); beta's stays closed.
    await ask(l, p, 'alpha', 'panne 1');
    await l.waitMatch(`${p}/alpha/ai/response`, (m) => m.text === APOLOGY_TEXT);
    await ask(l, p, 'alpha', 'panne 2');
    await l.waitFor(`${p}/alpha/ai/response`, 3);
    await ask(l, p, 'alpha', 'Et maintenant ?');
    await ask(l, p, 'beta', 'Et maintenant ?');
    const alphaUsage = await l.waitFor(`${p}/alpha/ai/usage`, 2);
    const betaUsage = await l.waitFor(`${p}/beta/ai/usage`, 2);
    expect(alphaUsage.at(-1)!.model).toBe('gpt-5-nano');
    expect(betaUsage.at(-1)!.model).toBe('gpt-5-mini');
    const h = fleet.health();
    expect(h).toMatchObject({ live_actors: 2, breakers_open: 1, spawned: 2, refused: 0, instance: 'test-1', shard: '0/1' });
  });

  it('idle stop after SKULL_IDLE_STOP_S of silence (simulated time), re-spawn with its retained config', async () => {
    const rig = await start(new ScriptedProvider());
    const { listener: l, prefix: p, clock } = rig;
    await l.publish(`${p}/gamma/skull/config/ia`, JSON.stringify({ model: 'gpt-5-nano' }), { retain: true });
    await l.publish(`${p}/gamma/skull/config/prompt_system`, JSON.stringify({ text: 'Tu es Gamma.' }), { retain: true });
    const fleet = await serve(rig);
    expect(fleet.device('gamma')).toBeUndefined(); // a retained config alone spawns nothing
    expect(fleet.health().configs_kept).toBe(1);

    await ask(l, p, 'gamma', 'Qui es-tu ?');
    expect((await l.waitFor(`${p}/gamma/ai/usage`))[0]!.model).toBe('gpt-5-nano');
    expect(rig.provider.calls[0]!.system).toContain('Tu es Gamma.');

    await waitUntil(() => fleet.health().busy_actors === 0);
    clock.increment(59_000);
    expect(fleet.device('gamma')).toBeDefined();
    clock.increment(1_001);
    expect(fleet.device('gamma')).toBeUndefined();
    expect(rig.runtime.get(`skull:${p}/gamma`)).toBeUndefined();
    expect(fleet.health()).toMatchObject({ live_actors: 0, idle_stopped: 1 });

    await ask(l, p, 'gamma', 'Encore là ?');
    const usage = await l.waitFor(`${p}/gamma/ai/usage`, 2);
    expect(usage[1]!.model).toBe('gpt-5-nano');
    expect(rig.provider.calls[1]!.system).toContain('Tu es Gamma.');
    expect(fleet.health()).toMatchObject({ live_actors: 1, spawned: 2 });
  });

  it('a busy device is not stopped at the idle timeout; it is once its turn ended', async () => {
    const provider = new ScriptedProvider();
    provider.manual = true;
    const rig = await start(provider);
    const fleet = await serve(rig);
    await ask(rig.listener, rig.prefix, 'slow', 'Longue question');
    await waitUntil(() => provider.waiting === 1);
    rig.clock.increment(60_001);
    expect(fleet.device('slow')).toBeDefined();
    provider.release();
    await rig.listener.waitFor(`${rig.prefix}/slow/ai/usage`);
    await waitUntil(() => fleet.health().busy_actors === 0);
    rig.clock.increment(60_001);
    expect(fleet.device('slow')).toBeUndefined();
  });

  it('a config that fell out of the bounded map is read again from the broker before the first turn', async () => {
    const rig = await start(new ScriptedProvider(), { SKULL_FLEET_CONFIG_MAX: '1' });
    const { listener: l, prefix: p } = rig;
    await l.publish(`${p}/d1/skull/config/ia`, JSON.stringify({ model: 'gpt-5-nano' }), { retain: true });
    await l.publish(`${p}/d2/skull/config/ia`, JSON.stringify({ model: 'gpt-5-nano' }), { retain: true });
    const fleet = await serve(rig);
    expect(fleet.health().configs_kept).toBe(1);
    await ask(l, p, 'd1', 'Bonjour');
    await ask(l, p, 'd2', 'Bonjour');
    expect((await l.waitFor(`${p}/d1/ai/usage`))[0]!.model).toBe('gpt-5-nano');
    expect((await l.waitFor(`${p}/d2/ai/usage`))[0]!.model).toBe('gpt-5-nano');
  });

  it('bound on live actors: the longest idle is stopped for a new device; all busy → refused, logged, counted', async () => {
    const provider = new ScriptedProvider();
    provider.manual = true;
    const { logger, lines } = memoryLogger();
    const rig = await start(provider, { SKULL_FLEET_MAX_ACTORS: '2' }, logger);
    const fleet = await serve(rig);
    const { listener: l, prefix: p } = rig;
    await ask(l, p, 'a', 'Question a');
    await ask(l, p, 'b', 'Question b');
    await waitUntil(() => provider.waiting === 2);
    await ask(l, p, 'c', 'Question c');
    await waitUntil(() => fleet.health().refused === 1);
    expect(fleet.device('c')).toBeUndefined();
    expect(fleet.health().rejected_by_reason).toEqual({ fleet_full: 1 });
    expect(lines.some((x) => x.reason === 'fleet_full' && x.deviceId === 'c' && x.msg === 'input rejected')).toBe(true);

    provider.release();
    provider.release();
    await l.waitFor(`${p}/a/ai/usage`);
    await l.waitFor(`${p}/b/ai/usage`);
    await ask(l, p, 'c', 'Question c encore');
    await waitUntil(() => provider.waiting === 1);
    expect(fleet.device('a')).toBeUndefined(); // a was idle the longest
    expect(fleet.device('b')).toBeDefined();
    expect(fleet.health()).toMatchObject({ live_actors: 2, evicted: 1, refused: 1 });
    provider.release();
    await l.waitFor(`${p}/c/ai/usage`);
  });

  it('invalid device ids and payloads are refused at the edge: nothing spawned, counted on the service health', async () => {
    const rig = await start(new ScriptedProvider());
    const fleet = await serve(rig);
    const { listener: l, prefix: p } = rig;
    for (const id of ['', 'x'.repeat(65), '_service', 'dév']) await ask(l, p, id, 'Bonjour');
    await l.publish(`${p}/ok1/ai/request`, '{not json');
    await l.publish(`${p}/ok1/ai/cancel`, ''); // nothing to cancel: spawns nothing
    await waitUntil(() => fleet.health().rejected === 5);
    expect(fleet.health().rejected_by_reason).toEqual({ invalid_device_id: 4, not_json: 1 });
    expect(fleet.health().live_actors).toBe(0);
    expect(rig.runtime.countByKind().skull).toBeUndefined();
    await fleet.publishHealth();
    const health = await l.waitMatch(`${p}/_service/test-1/health`, (m) => m.rejected === 5);
    expect(health).toMatchObject({ ok: true, instance: 'test-1', shard: '0/1', live_actors: 0, rejected_by_reason: { invalid_device_id: 4, not_json: 1 } });
  });

  it('a refused retained config is counted like one device\'s: invalid_config and last_config_error on the service health', async () => {
    const rig = await start(new ScriptedProvider());
    const fleet = await serve(rig);
    const { listener: l, prefix: p } = rig;
    expect(fleet.health()).toMatchObject({ invalid_config: 0, last_config_error: null });
    await l.publish(`${p}/delta/skull/config/ia`, JSON.stringify({ model: 'gpt-4o' }), { retain: true });
    await waitUntil(() => fleet.health().invalid_config === 1);
    expect(fleet.health().last_config_error).toMatch(new RegExp(`^${p}/delta/skull/config/ia: invalid \\(.*gpt-4o is not offered`));
    expect(fleet.health()).toMatchObject({ rejected: 1, rejected_by_reason: { invalid: 1 }, configs_kept: 0 });
    // The device keeps its environment defaults.
    await ask(l, p, 'delta', 'Bonjour');
    expect((await l.waitFor(`${p}/delta/ai/usage`))[0]!.model).toBe('gpt-5-mini');
    await l.publish(`${p}/delta/skull/config/ia`, '', { retain: true });
  });
});

describe.skipIf(!mosquitto.ok)(`skull fleet shards on mosquitto (${mosquitto.reason})`, () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await mosquittoBroker();
  });
  afterAll(async () => broker?.close());

  it('two shards (0/2, 1/2) answer each of 20 devices exactly once', async () => {
    const prefix = uniquePrefix();
    const provider = new ScriptedProvider();
    const shards = await Promise.all(
      ['0/2', '1/2'].map(async (shard, i) => {
        const runtime = new Runtime();
        const config = testConfig({ SKULL_FLEET_PREFIX: prefix, SKULL_FLEET_SHARD: shard, SKULL_FLEET_INSTANCE: `shard-${i}` });
        const fleet = await startWiredSkullFleet({ config, logger: silentLogger(), runtime, provider, mqttUrl: broker.url, healthIntervalMs: 0 });
        return { fleet, runtime };
      }),
    );
    const l = await Listener.open(broker.url, [`${prefix}/+/ai/response`]);
    try {
      expect(shards.map((s) => s.fleet.protocolVersion)).toEqual([5, 5]);
      const ids = Array.from({ length: 20 }, (_, i) => `dev-${i}`);
      for (const id of ids) await l.publish(`${prefix}/${id}/ai/request`, JSON.stringify({ text: `Bonjour de ${id}` }));
      await waitUntil(() => l.messages.length >= 20);
      // Anything duplicated would arrive within the same round trips: give it a moment.
      await new Promise((r) => setTimeout(r, 300));
      const per = new Map<string, number>();
      for (const m of l.messages) per.set(m.topic.split('/')[1]!, (per.get(m.topic.split('/')[1]!) ?? 0) + 1);
      expect([...per.keys()].sort()).toEqual([...ids].sort());
      expect([...per.values()].every((n) => n === 1)).toBe(true);
      const served = shards.map((s) => s.fleet.health().spawned);
      expect(served[0]! + served[1]!).toBe(20);
      expect(served[0]).toBe(ids.filter((id) => fnv1a(id) % 2 === 0).length);
      expect(shards.map((s) => s.fleet.health().other_shard)).toEqual([served[1], served[0]]);
    } finally {
      await l.close();
      for (const s of shards) {
        await s.fleet.stop();
        s.runtime.shutdown();
      }
    }
  });
});

/** Waits (real time, bounded) for MQTT round trips, never for simulated timers. */
async function waitUntil(pred: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
