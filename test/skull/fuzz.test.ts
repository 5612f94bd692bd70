import fc from 'fast-check';
import type { ZodType } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { silentLogger } from '../../core/log.js';
import { type SkullService } from '../../transports/mqtt/skullEdge.js';
import { startWiredSkull } from '../../actors/skull/surface.js';
import { cancelSchema, iaConfigSchema, MAX_PAYLOAD_BYTES, parsePayload, promptSystemSchema, textInputSchema } from '../../transports/mqtt/skullSchemas.js';
import { embeddedBroker, Listener, ScriptedProvider, testConfig, uniquePrefix, type TestBroker } from './support.js';

/**
 * fast-check fuzzing of every input topic through the real broker and transport: whatever bytes
 * arrive, the service stays up, every rejected payload is counted on health, a bad config never
 * replaces the last good one, and only valid text inputs can produce a reply.
 */
const TOPICS = ['asr/text', 'ai/request', 'ai/cancel', 'skull/config/ia', 'skull/config/prompt_system'] as const;
type Topic = (typeof TOPICS)[number];

/** The transport's own acceptance rule, per topic (an empty config payload clears it: valid). */
function accepted(topic: Topic, payload: Buffer): boolean {
  switch (topic) {
    case 'asr/text':
    case 'ai/request':
      return parsePayload(payload, textInputSchema).ok;
    case 'ai/cancel':
      return parsePayload(payload, cancelSchema, {}).ok;
    case 'skull/config/ia':
      return payload.length === 0 || parsePayload(payload, iaConfigSchema).ok;
    case 'skull/config/prompt_system':
      return payload.length === 0 || parsePayload(payload, promptSystemSchema).ok;
  }
}

const enc = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v) ?? 'null', 'utf8');
const payloadArb: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  fc.string({ maxLength: 100 }).map(enc),
  fc.jsonValue({ maxDepth: 3 }).map(enc),
  fc.record({ ts_ms: fc.oneof(fc.integer(), fc.double(), fc.string()), text: fc.oneof(fc.string({ maxLength: 50 }), fc.integer(), fc.constant('')) }, { requiredKeys: [] }).map(enc),
  fc.record({ model: fc.oneof(fc.constantFrom('gpt-5-nano', 'gpt-5-mini'), fc.string()), temperature: fc.double({ noNaN: false }), max_tokens: fc.integer() }, { requiredKeys: [] }).map(enc),
  fc.record({ text: fc.string({ maxLength: 30 }), extra: fc.anything() }, { requiredKeys: ['text'] }).map(enc),
  fc.constant(Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x7b)),
  fc.constant(Buffer.alloc(0)),
);

describe('skull fuzzing (fast-check) through the broker', () => {
  let broker: TestBroker;
  let svc: SkullService;
  let runtime: Runtime;
  let pub: Listener;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    broker = await embeddedBroker();
    runtime = new Runtime();
    svc = await startWiredSkull({
      config: testConfig({ SKULL_TOPIC_PREFIX: prefix, SKULL_DEBOUNCE_MS: '0' }),
      logger: silentLogger(),
      runtime,
      provider: new ScriptedProvider(),
      mqttUrl: broker.url,
      healthIntervalMs: 0,
    });
    pub = await Listener.open(broker.url, [`${prefix}/ai/response`]);
  });
  afterAll(async () => {
    await pub?.close();
    await svc?.stop();
    runtime?.shutdown();
    await broker?.close();
  });

  /** Publishes a valid no-op (ai/cancel) behind the batch and waits for the actor to get it. */
  async function barrier(): Promise<void> {
    const got = new Promise<void>((resolve) => {
      const off = runtime.onInspect((ev: InspectionEvent) => {
        if (ev.type === '@xstate.event' && ev.actorRef === svc.actor && ev.event.type === 'ai.cancel') {
          off();
          resolve();
        }
      });
    });
    await pub.publish(`${prefix}/ai/cancel`, '');
    await got;
  }

  it('never crashes, counts every rejection, keeps the last good config', async () => {
    let expectedRejected = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...TOPICS), payloadArb), { minLength: 1, maxLength: 8 }), async (batch) => {
        const before = svc.health();
        for (const [topic, payload] of batch) {
          if (!accepted(topic, payload)) expectedRejected++;
          await pub.publish(`${prefix}/${topic}`, payload);
        }
        await barrier();
        const h = svc.health();
        expect(h.ok).toBe(true);
        expect(svc.actor.getSnapshot().status).toBe('active');
        expect(h.rejected).toBe(expectedRejected);
        // A batch whose config payloads were all rejected leaves the effective model untouched.
        const goodIa = batch.some(([t, p]) => t === 'skull/config/ia' && accepted(t, p));
        if (!goodIa) expect(h.model).toBe(before.model);
      }),
      { numRuns: 60, seed: 20261130 },
    );
    // Replies only ever come from valid text inputs, and each has a non-empty text.
    for (const r of pub.on(`${prefix}/ai/response`)) expect(typeof r.text === 'string' && r.text.length > 0).toBe(true);
  });
});

describe('parsePayload fuzzing (pure)', () => {
  it('never throws and always classifies', () => {
    fc.assert(
      fc.property(payloadArb, (payload) => {
        const schemas: Array<ZodType<unknown>> = [textInputSchema, cancelSchema, iaConfigSchema, promptSystemSchema];
        for (const schema of schemas) {
          const r = parsePayload(payload, schema);
          if (!r.ok) expect(['too_large', 'not_utf8', 'not_json', 'invalid']).toContain(r.reason);
        }
      }),
      { numRuns: 500 },
    );
  });
});
