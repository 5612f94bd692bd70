import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../core/runtime.js';
import { silentLogger } from '../../core/log.js';
import { type SkullService } from '../../transports/mqtt/skullEdge.js';
import { startWiredSkull } from '../../actors/skull/surface.js';
import { createOpenAIProvider } from '../../actors/llm/openai.js';
import { APOLOGY_TEXT } from '../../machines/skullTypes.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';
import { requireBinary } from '../support/requires.js';
import { embeddedBroker, mosquittoBroker, testConfig, uniquePrefix, type TestBroker } from './support.js';

/**
 * The spec's "Test manuel rapide", driven by the real mosquitto_pub / mosquitto_sub clients,
 * with the real OpenAI SDK against the wire fake (so that step 5 can "cut the API").
 */
const pub = requireBinary('mosquitto_pub', 'mosquitto-clients');
const sub = requireBinary('mosquitto_sub', 'mosquitto-clients');
const mosq = requireBinary('mosquitto', 'mosquitto');
const run = promisify(execFile);

const brokers: Array<[string, () => Promise<TestBroker>, boolean]> = [
  ['embedded aedes', embeddedBroker, true],
  ['mosquitto', mosquittoBroker, mosq.ok],
];

for (const [name, makeBroker, available] of brokers) {
  describe.skipIf(!pub.ok || !sub.ok || !available)(`manual test of the spec with mosquitto clients on ${name} (${pub.reason})`, () => {
    let broker: TestBroker;
    let fake: OpenAIFake;
    let svc: SkullService;
    let runtime: Runtime;
    let subProc: ChildProcess;
    const lines: string[] = [];
    const prefix = uniquePrefix();
    let hostPort: string[];

    const waitLines = async (pred: (l: string[]) => boolean, timeoutMs = 8000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pred(lines)) {
        if (Date.now() > deadline) throw new Error(`timeout; mosquitto_sub printed:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const publish = (topic: string, message: string, retain = false) =>
      run(pub.path, [...hostPort, '-q', '1', '-t', `${prefix}/${topic}`, '-m', message, ...(retain ? ['-r'] : [])]);
    const of = (topic: string) => lines.filter((l) => l.startsWith(`${prefix}/${topic} `)).map((l) => JSON.parse(l.slice(l.indexOf(' ') + 1)) as Record<string, unknown>);

    beforeAll(async () => {
      broker = await makeBroker();
      const url = new URL(broker.url);
      hostPort = ['-h', url.hostname, '-p', url.port];
      fake = await startOpenAIFake();
      fake.setDefault({ text: 'Qu’est-ce qui a des dents mais ne mord jamais? Un peigne!' });
      runtime = new Runtime();
      // 1. Start the service and subscribe: mosquitto_sub -t 'ai/#' -v
      svc = await startWiredSkull({
        config: testConfig({ SKULL_TOPIC_PREFIX: prefix, LLM_BACKOFF_BASE_MS: '0' }),
        logger: silentLogger(),
        runtime,
        provider: createOpenAIProvider({ apiKey: 'test', baseURL: `${fake.url}/v1` }),
        mqttUrl: broker.url,
        healthIntervalMs: 0,
        random: () => 0,
      });
      subProc = spawn(sub.path, [...hostPort, '-q', '1', '-t', `${prefix}/ai/#`, '-v']);
      let buf = '';
      subProc.stdout!.on('data', (d: Buffer) => {
        buf += d.toString('utf8');
        const parts = buf.split('\n');
        buf = parts.pop() ?? '';
        lines.push(...parts.filter(Boolean));
      });
      await waitLines((l) => l.some((x) => x.startsWith(`${prefix}/ai/capabilities `)));
    });

    afterAll(async () => {
      subProc?.kill();
      await svc?.stop();
      runtime?.shutdown();
      await fake?.close();
      await broker?.close();
    });

    it('2. ai/request → ai/response + ai/usage', async () => {
      await publish('ai/request', '{"text":"Dis une courte devinette."}');
      await waitLines(() => of('ai/usage').length >= 1);
      expect(of('ai/response')[0]!.text).toBe('Qu’est-ce qui a des dents mais ne mord jamais\u202f? Un peigne\u202f!');
      expect(of('ai/usage')[0]).toMatchObject({ model: 'gpt-5-mini', cached: false });
    });

    it('3. a custom prompt_system applies to the next request', async () => {
      await publish('skull/config/prompt_system', '{"text":"Tu es un crâne très poli et drôle. Pas de sujets sérieux."}');
      // The service has no ack for config; wait until its health says the retained prompt is in use.
      const deadline = Date.now() + 5000;
      while (svc.health().prompt_source !== 'retained' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const before = fake.requests.length;
      await publish('ai/request', '{"text":"Qui es-tu ?"}');
      await waitLines(() => of('ai/usage').length >= 2);
      const body = fake.requests[before]!.body as { messages: Array<{ role: string; content: string }> };
      expect(JSON.stringify(body.messages)).toContain('Tu es un crâne très poli et drôle. Pas de sujets sérieux.');
    });

    it('4. a burst of 3 ai/request → queued, answered one after the other, in order', async () => {
      fake.script({ text: 'Réponse une.', delayMs: 100 }, { text: 'Réponse deux.', delayMs: 100 }, { text: 'Réponse trois.', delayMs: 100 });
      const n = of('ai/response').length;
      await Promise.all([1, 2, 3].map((i) => publish('ai/request', JSON.stringify({ text: `Question ${i}` }))));
      await waitLines(() => of('ai/response').length >= n + 3);
      expect(of('ai/response').slice(n).map((r) => r.text)).toEqual(['Réponse une.', 'Réponse deux.', 'Réponse trois.']);
      expect(svc.health().dropped).toBe(0);
    });

    it('5. the API goes down: fallback to nano tried, then the apology', async () => {
      fake.setDefault({ status: 503 });
      const before = fake.requests.length;
      const n = of('ai/response').length;
      await publish('ai/request', '{"text":"Encore une devinette ?"}');
      await waitLines(() => of('ai/response').length > n, 15_000);
      expect(of('ai/response').at(-1)!.text).toBe(APOLOGY_TEXT);
      const models = fake.requests.slice(before).map((r) => (r.body as { model: string }).model);
      expect(models).toContain('gpt-5-nano');
      expect(models[0]).toBe('gpt-5-mini');
    });
  });
}
