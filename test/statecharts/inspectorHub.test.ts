import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { InspectorHub } from '../../actors/statecharts/inspectorHub.js';
import { actorLabel } from '../../actors/statecharts/actorLabel.js';
import { redactForInspection } from '../../actors/statecharts/redact.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5kaWRhdGUtNDIiLCJwbGFuIjoicHJlbWl1bSJ9.c2lnbmF0dXJlLWhlcmU';
const KEY = 'sk-ant-api03-abcdefghijklmnop';
const AUDIO = Buffer.alloc(4096, 7).toString('base64');

const session = setup({
  types: {
    context: {} as { apiKey: string; note: string; chunks: number; last?: unknown },
    events: {} as { type: 'audio'; data: string } | { type: 'bytes'; pcm: Uint8Array } | { type: 'say'; text: string },
    input: {} as { apiKey: string },
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({ apiKey: input.apiKey, note: `token ${JWT} and url https://x.test/ws?key=${KEY}`, chunks: 0 }),
  initial: 'listening',
  states: {
    listening: {
      on: {
        audio: { actions: assign({ chunks: ({ context }) => context.chunks + 1 }) },
        bytes: { actions: assign({ last: ({ event }) => event.pcm }) },
        say: 'speaking',
      },
    },
    speaking: {},
  },
});

describe('inspection redaction', () => {
  it('replaces secrets and binary payloads, keeps the rest', () => {
    const out = redactForInspection({
      apiKey: KEY,
      headers: { Authorization: `Bearer ${JWT}` },
      message: `call with ${KEY}`,
      audio: AUDIO,
      pcm: new Uint8Array(32),
      nested: { password: 'hunter22', text: 'bonjour' },
      // A URL with its password, under a key that does not say it is secret (the logs' rule).
      broker: 'mqtt://skull:brokerpass77@broker.local:1883',
    }) as Record<string, unknown>;
    const text = JSON.stringify(out);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(JWT);
    expect(text).not.toContain('hunter22');
    expect(text).not.toContain(AUDIO.slice(0, 64));
    expect(out.broker).toBe('mqtt://skull:***@broker.local:1883');
    expect(out.pcm).toBe('[binary 32 bytes]');
    expect((out.nested as Record<string, unknown>).text).toBe('bonjour');
    expect(out.audio).toMatch(/^\[binary \d+ bytes\]$/);
  });
});

describe('InspectorHub', () => {
  it('attributes events to their conversation and never lets a secret through', () => {
    const runtime = new Runtime();
    let now = 1_000_000;
    const hub = new InspectorHub(runtime, () => now, 300_000);
    const records: unknown[] = [];
    const off = hub.subscribe((r) => records.push(r));
    const ref = runtime.start('t2live', 't2:abc', session, { apiKey: KEY });
    ref.send({ type: 'audio', data: AUDIO });
    ref.send({ type: 'bytes', pcm: new Uint8Array(640) });
    ref.send({ type: 'say', text: 'Bonjour' });

    const views = hub.conversations();
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ systemId: 't2:abc', kind: 't2live', value: 'speaking' });
    const recent = hub.recent('t2:abc');
    expect(recent.map((r) => r.eventType)).toEqual(expect.arrayContaining(['audio', 'bytes', 'say']));
    expect(recent.every((r) => r.conversation === 't2:abc' && r.kind === 't2live')).toBe(true);
    const everything = JSON.stringify([records, views, recent]);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(JWT);
    expect(everything).not.toContain(AUDIO.slice(0, 64));
    expect(everything).toContain('[redacted]');

    // Ended: still listed for INSPECT_RETAIN_S, with its final state and its whole event log.
    runtime.stop('t2:abc');
    const stoppedAt = now;
    now += 1000;
    const ended = hub.conversations();
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ systemId: 't2:abc', value: 'speaking', endedAt: stoppedAt, label: 't2live · session abc' });
    expect(hub.recent('t2:abc').map((r) => r.eventType)).toEqual(expect.arrayContaining(['audio', 'bytes', 'say']));
    now += 298_999;
    expect(hub.conversations()).toHaveLength(1);
    now += 1001;
    expect(hub.conversations()).toHaveLength(0);
    expect(hub.recent('t2:abc')).toHaveLength(0);

    // Nobody listening: nothing is kept.
    const again = runtime.start('t2live', 't2:def', session, { apiKey: KEY });
    again.send({ type: 'say', text: 'x' });
    runtime.stop('t2:def');
    off();
    expect(hub.conversations()).toHaveLength(0);
    hub.close();
    runtime.shutdown();
  });

  it('names actors readably', () => {
    expect(actorLabel('t2live', 't2:0d6f2c1e-aaaa-4bbb-8ccc-123456789abc', { candidateId: 'user-1234ab12', subject: { titre: 'Inscription club de sport' } })).toBe('t2live · candidate user-1234ab12 · Inscription club de sport');
    // Never cut to a few characters: two candidates ending alike stay apart.
    expect(actorLabel('t2live', 't2:x', { candidateId: 'cand-double' })).toBe('t2live · candidate cand-double');
    const long = `auth0|${'a'.repeat(30)}-${'b'.repeat(30)}`;
    const shown = actorLabel('t2live', 't2:x', { candidateId: long });
    expect(shown).toBe(`t2live · candidate ${long.slice(0, 19)}…${long.slice(-19)}`);
    expect(actorLabel('skull', 'skull:salon', { deviceId: 'salon' })).toBe('skull · device salon');
    expect(actorLabel('chat', 'chat:3f2a9c1e-aaaa-4bbb-8ccc-123456789abc', { question: 'Combien de temps les journaux techniques sont-ils conservés ?' })).toBe('chat · question 3f2a · « Combien de temps les journaux technique… »');
    expect(actorLabel('correction', 'correction:77aa9c1e-aaaa-4bbb-8ccc-123456789abc', { production: { tache: 'EO_T2' } })).toBe('correction · EO_T2 · 77aa');
  });
});
