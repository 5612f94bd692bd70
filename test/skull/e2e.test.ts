import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Runtime } from '../../core/runtime.js';
import { silentLogger } from '../../core/log.js';
import { type HealthPayload } from '../../transports/mqtt/skullHealth.js';
import { startWiredSkull } from '../../actors/skull/surface.js';
import { MAX_PAYLOAD_BYTES } from '../../transports/mqtt/skullSchemas.js';
import { createOpenAIProvider } from '../../actors/llm/openai.js';
import { NNBSP } from '../../prompts/skull/postprocess.js';
import { APOLOGY_TEXT } from '../../machines/skullTypes.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';
import { requireBinary } from '../support/requires.js';
import { PUBACK, recordWrites } from './socketWrites.js';
import { embeddedBroker, Listener, memoryLogger, mosquittoBroker, ScriptedProvider, testConfig, uniquePrefix, type TestBroker } from './support.js';
import type { LlmProvider } from '../../machines/llmPort.js';

/**
 * The Skull service end to end on a real broker: the embedded aedes (MQTT 3.1.1) and Debian's
 * mosquitto (MQTT 5). Same suite for both.
 */
const mosquitto = requireBinary('mosquitto', 'mosquitto');

const brokers: Array<[string, () => Promise<TestBroker>, boolean]> = [
  ['embedded aedes', embeddedBroker, true],
  [`mosquitto (${mosquitto.reason})`, mosquittoBroker, mosquitto.ok],
];

for (const [name, makeBroker, available] of brokers) {
  describe.skipIf(!available)(`skull e2e on ${name}`, () => {
    let broker: TestBroker;
    const open: Array<{ close(): Promise<void> }> = [];
    beforeAll(async () => {
      broker = await makeBroker();
    });
    afterAll(async () => broker?.close());
    afterEach(async () => {
      for (const o of open.splice(0).reverse()) await o.close().catch(() => undefined);
    });

    async function start(provider: LlmProvider, env: Record<string, string> = {}, prefix = uniquePrefix(), logger = silentLogger()) {
      const config = testConfig({ SKULL_TOPIC_PREFIX: prefix, ...env });
      const runtime = new Runtime();
      const svc = await startWiredSkull({ config, logger, runtime, provider, mqttUrl: broker.url, healthIntervalMs: 0, random: () => 0 });
      open.push({ close: async () => { await svc.stop(); runtime.shutdown(); } });
      const listener = await Listener.open(broker.url, [`${prefix}/ai/#`]);
      open.push(listener);
      return { svc, listener, prefix, runtime };
    }

    it('a reply ready in the turn of its request leaves in one write with the request\'s PUBACK, PUBACK first', async () => {
      const { svc, listener, prefix } = await start(new ScriptedProvider());
      const writes = recordWrites(svc.client.stream);
      await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Raconte une blague.' }));
      await listener.waitFor(`${prefix}/ai/usage`);
      const withResponse = writes.filter((w) => w.includes(`${prefix}/ai/response`));
      expect(withResponse).toHaveLength(1);
      expect(withResponse[0]![0]).toBe(PUBACK);
      // No PUBACK went out on its own before it, and ai/usage (sent once ai/response is acked) is the next write.
      expect(writes.filter((w) => w[0] === PUBACK)).toHaveLength(1);
      const usage = writes.findIndex((w) => w.includes(`${prefix}/ai/usage`));
      expect(usage).toBe(writes.indexOf(withResponse[0]!) + 1);
    });

    it('a slower model does not hold the request\'s PUBACK: it leaves before the reply, on its own', async () => {
      const provider = new ScriptedProvider();
      provider.manual = true;
      const { svc, listener, prefix } = await start(provider);
      const writes = recordWrites(svc.client.stream);
      await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Raconte une blague.' }));
      await vi.waitFor(() => expect(provider.waiting).toBe(1));
      // Written at the end of the request's event-loop turn, while the model still runs.
      await vi.waitFor(() => expect(writes.filter((w) => w[0] === PUBACK)).toHaveLength(1));
      expect(provider.waiting).toBe(1);
      provider.release();
      await listener.waitFor(`${prefix}/ai/usage`);
      const withResponse = writes.filter((w) => w.includes(`${prefix}/ai/response`));
      expect(withResponse).toHaveLength(1);
      expect(withResponse[0]![0]).not.toBe(PUBACK);
    });

    it('negotiates the protocol: 5 on mosquitto, 3.1.1 on aedes', async () => {
      const { svc } = await start(new ScriptedProvider());
      expect(svc.protocolVersion).toBe(broker.kind === 'mosquitto' ? 5 : 4);
    });

    it('ai/request → ai/response then ai/usage (QoS 1), French typography, usage fields', async () => {
      const provider = new ScriptedProvider().script({ kind: 'reply', text: 'Salut! Je suis Skull.', inputTokens: 120, outputTokens: 40 });
      const { listener, prefix } = await start(provider);
      await listener.publish(`${prefix}/ai/request`, JSON.stringify({ ts_ms: 0, text: 'Présente-toi en deux phrases.' }));
      const [usage] = await listener.waitFor(`${prefix}/ai/usage`);
      const [response] = listener.on(`${prefix}/ai/response`);
      expect(response).toMatchObject({ text: `Salut${NNBSP}! Je suis Skull.` });
      expect(typeof response!.ts_ms).toBe('number');
      expect(usage).toMatchObject({ input_tokens: 120, output_tokens: 40, model: 'gpt-5-mini', cached: false });
      expect(typeof usage!.latency_ms).toBe('number');
      const order = listener.messages.map((m) => m.topic).filter((t) => t.endsWith('/response') || t.endsWith('/usage'));
      expect(order).toEqual([`${prefix}/ai/response`, `${prefix}/ai/usage`]);
    });

    it('8. ai/capabilities is retained and conform, again after a restart', async () => {
      const prefix = uniquePrefix();
      const first = await start(new ScriptedProvider(), {}, prefix);
      await first.svc.stop();
      const t0 = Date.now();
      await start(new ScriptedProvider(), {}, prefix);
      const late = await Listener.open(broker.url, [`${prefix}/ai/capabilities`]);
      open.push(late);
      const [caps] = await late.waitFor(`${prefix}/ai/capabilities`);
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(late.messages[0]!.retain).toBe(true);
      expect(caps).toEqual({ models: ['gpt-5-mini', 'gpt-5-nano'], lang: 'fr', max_tokens: 512 });
    });

    it('republishes capabilities after a reconnect, and the last will marks health ok:false', async () => {
      const { svc, listener, prefix } = await start(new ScriptedProvider());
      await listener.waitFor(`${prefix}/ai/capabilities`, 1);
      // Cut the TCP connection under the client: the broker fires the will, mqtt.js reconnects.
      svc.client.stream.destroy();
      const will = await listener.waitMatch(`${prefix}/ai/health`, (h) => h.ok === false);
      expect(will).toEqual({ ok: false, reason: 'offline' });
      await listener.waitFor(`${prefix}/ai/capabilities`, 2, 8000);
      const before = listener.on(`${prefix}/ai/health`).length;
      await svc.publishHealth();
      const after = await listener.waitFor(`${prefix}/ai/health`, before + 1);
      expect(after.at(-1)).toMatchObject({ ok: true });
    });

    it('bad input on every topic: logged, counted on health, nothing published, service up', async () => {
      const provider = new ScriptedProvider();
      const { svc, listener, prefix } = await start(provider);
      const bad: Array<string | Buffer> = [
        'pas du json',
        '{"text":42}',
        '{"ts_ms":1}',
        '{"text":"   "}',
        '{"text":"ok","extra":true}',
        Buffer.from([0xff, 0x00, 0xfe, 0x81, 0x10]),
        Buffer.alloc(MAX_PAYLOAD_BYTES + 10, 0x61),
      ];
      for (const topic of ['asr/text', 'ai/request']) for (const p of bad) await listener.publish(`${prefix}/${topic}`, p);
      await listener.publish(`${prefix}/ai/cancel`, 'nope');
      await listener.publish(`${prefix}/ai/cancel`, '{"foo":1}');
      // Config: a good one, then bad ones; the good one must stay.
      await listener.publish(`${prefix}/skull/config/ia`, JSON.stringify({ model: 'gpt-5-nano' }));
      await listener.publish(`${prefix}/skull/config/ia`, '{"temperature":9}');
      await listener.publish(`${prefix}/skull/config/prompt_system`, '{"text":""}');
      await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Bonjour' }));
      await listener.waitFor(`${prefix}/ai/response`, 1);
      const h: HealthPayload = svc.health();
      expect(h.rejected).toBe(2 * bad.length + 2 + 2);
      expect(h.rejected_by_reason).toMatchObject({ not_json: 3, not_utf8: 2, too_large: 2 });
      expect(h.invalid_config).toBe(2);
      expect(h.last_config_error).toContain('prompt_system');
      expect(h.model).toBe('gpt-5-nano');
      expect(provider.calls.map((c) => c.model)).toEqual(['gpt-5-nano']);
      expect(listener.on(`${prefix}/ai/response`)).toHaveLength(1);
      expect(h.ok).toBe(true);
    });

    it('a retained config naming a model not in ai/capabilities, or another language, is rejected and counted; the last good one stays', async () => {
      const provider = new ScriptedProvider();
      const { listener, prefix, svc } = await start(provider);
      const [caps] = await listener.waitFor(`${prefix}/ai/capabilities`);
      expect(caps).toMatchObject({ models: ['gpt-5-mini', 'gpt-5-nano'], lang: 'fr' });
      await listener.publish(`${prefix}/skull/config/ia`, JSON.stringify({ model: 'gpt-5-nano', lang: 'fr-CA' }), { retain: true });
      await listener.publish(`${prefix}/skull/config/ia`, JSON.stringify({ model: 'gpt-4o' }), { retain: true });
      await listener.publish(`${prefix}/skull/config/ia`, JSON.stringify({ lang: 'en' }), { retain: true });
      await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Bonjour' }));
      await listener.waitFor(`${prefix}/ai/response`, 1);
      const h = svc.health();
      expect(h.invalid_config).toBe(2);
      expect(h.last_config_error).toContain('lang: en is not supported (ai/capabilities.lang: fr)');
      expect(h.model).toBe('gpt-5-nano');
      expect(provider.calls.map((c) => c.model)).toEqual(['gpt-5-nano']);
      await listener.publish(`${prefix}/skull/config/ia`, '', { retain: true });
    });

    it('lost retained config → prompt file, no crash; new retained prompt applies to the next turn', async () => {
      const provider = new ScriptedProvider();
      const { listener, prefix, svc } = await start(provider);
      await listener.publish(`${prefix}/skull/config/prompt_system`, JSON.stringify({ text: 'Tu es un crâne très poli et drôle. Pas de sujets sérieux.' }), { retain: true });
      await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Bonjour' }));
      await listener.waitFor(`${prefix}/ai/response`, 1);
      expect(provider.calls[0]!.system).toContain('Tu es un crâne très poli et drôle.');
      expect(svc.health().prompt_source).toBe('retained');
      // Clearing a retained topic = empty retained payload.
      await listener.publish(`${prefix}/skull/config/prompt_system`, '', { retain: true });
      await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Bonjour' }));
      await listener.waitFor(`${prefix}/ai/response`, 2);
      expect(provider.calls[1]!.system).toContain("Tu es Skull, un crâne joyeux");
      expect(svc.health().prompt_source).toBe('file');
    });

    it('soft policy on asr/text: redirect published, model never called', async () => {
      const provider = new ScriptedProvider();
      const { listener, prefix } = await start(provider);
      await listener.publish(`${prefix}/asr/text`, JSON.stringify({ ts_ms: 0, text: 'Tu penses quoi des élections ?' }));
      const [r] = await listener.waitFor(`${prefix}/ai/response`, 1);
      expect(r!.text).toBe(`Sujet sensible, changeons de thème amusant${NNBSP}!`);
      expect(provider.calls).toHaveLength(0);
      expect(listener.on(`${prefix}/ai/usage`)).toHaveLength(0);
    });

    describe('through the real OpenAI SDK against the wire fake', () => {
      let fake: OpenAIFake;
      beforeAll(async () => {
        fake = await startOpenAIFake();
      });
      afterAll(async () => fake?.close());
      afterEach(() => fake.reset());

      it('3 transient errors → retries, then the fallback model answers', async () => {
        fake.script({ status: 503 }, { status: 429 }, { status: 500 }, { status: 502 }, { text: 'Je suis là grâce au modèle de secours.' });
        const provider = createOpenAIProvider({ apiKey: 'sk-test-secret-key-123456', baseURL: `${fake.url}/v1` });
        const mem = memoryLogger();
        const { listener, prefix } = await start(provider, { LLM_BACKOFF_BASE_MS: '0' }, uniquePrefix(), mem.logger);
        await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Dis une courte devinette.' }));
        const [usage] = await listener.waitFor(`${prefix}/ai/usage`, 1, 10_000);
        expect(fake.requests.map((r) => (r.body as { model: string }).model)).toEqual(['gpt-5-mini', 'gpt-5-mini', 'gpt-5-mini', 'gpt-5-mini', 'gpt-5-nano']);
        expect(usage!.model).toBe('gpt-5-nano');
        // GPT-5 rejects temperature/top_p: the fake is strict, so reaching it proves none were sent.
        expect((fake.requests[4]!.body as Record<string, unknown>).temperature).toBeUndefined();
        // JSON logs name the retry causes and the fallback, and never the key.
        await new Promise<void>((resolve) => mem.logger.flush(() => resolve()));
        expect(mem.lines.filter((l) => l.msg === 'llm retry').map((l) => l.kind)).toEqual(['server', 'rate_limited', 'server']);
        expect(mem.lines.some((l) => l.msg === 'primary model failed: falling back' && l.model === 'gpt-5-nano')).toBe(true);
        expect(JSON.stringify(mem.lines)).not.toContain('sk-test-secret-key-123456');
      });

      it('5 failures in 60 s → the breaker opens, ai/usage names the fallback; API down → apology', async () => {
        fake.script({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { text: 'Secours.' });
        const provider = createOpenAIProvider({ apiKey: 'test', baseURL: `${fake.url}/v1` });
        const mem = memoryLogger();
        const { listener, prefix, svc } = await start(provider, { LLM_BACKOFF_BASE_MS: '0' }, uniquePrefix(), mem.logger);
        await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Bonjour' }));
        await listener.waitFor(`${prefix}/ai/usage`, 1, 10_000);
        expect(svc.health().breaker).toBe('open');
        await new Promise<void>((resolve) => mem.logger.flush(() => resolve()));
        expect(mem.lines.some((l) => l.msg === 'breaker open: fallback model for every call' && l.fallbackModel === 'gpt-5-nano')).toBe(true);
        await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Encore' }));
        const usages = await listener.waitFor(`${prefix}/ai/usage`, 2, 10_000);
        expect(usages.map((u) => u.model)).toEqual(['gpt-5-nano', 'gpt-5-nano']);
        // The API goes down entirely: final failure → the apology, no usage.
        fake.setDefault({ status: 503 });
        await listener.publish(`${prefix}/ai/request`, JSON.stringify({ text: 'Toujours là ?' }));
        const responses = await listener.waitFor(`${prefix}/ai/response`, 3, 10_000);
        expect(responses[2]!.text).toBe(APOLOGY_TEXT);
        expect(listener.on(`${prefix}/ai/usage`)).toHaveLength(2);
        fake.setDefault({ text: 'ok' });
      });
    });
  });
}

describe('skull start against an unreachable broker', () => {
  it('keeps retrying with backoff, and gives up at connectTimeoutMs when asked to', async () => {
    const { createServer } = await import('node:net');
    // A port that refuses connections: listen, note the port, close.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
      });
    });
    const runtime = new Runtime();
    const t0 = Date.now();
    await expect(
      startWiredSkull({
        config: testConfig(),
        logger: silentLogger(),
        runtime,
        provider: new ScriptedProvider(),
        mqttUrl: `mqtt://127.0.0.1:${port}`,
        reconnectBaseMs: 50,
        connectTimeoutMs: 300,
      }),
    ).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(runtime.list()).toEqual([]);
    runtime.shutdown();
  });
});
