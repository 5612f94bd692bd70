import { describe, expect, it } from 'vitest';
import { Outbox, type OutboxMessage } from '../../transports/mqtt/outbox.js';

function setup(max = 3, ttlMs = 1000) {
  let now = 0;
  const expired: Array<{ topic: string | undefined; why: string }> = [];
  const box = new Outbox({ max, ttlMs, now: () => now, onExpired: (m, why) => expired.push({ topic: m[0]?.topic, why }) });
  return { box, expired, tick: (ms: number) => (now += ms) };
}
const reply = (n: number): OutboxMessage[] => [
  { topic: 'ai/response', payload: `r${n}` },
  { topic: 'ai/usage', payload: `u${n}` },
];

describe('Skull reply outbox', () => {
  it('sends kept replies in order, each reply whole (response then usage)', async () => {
    const { box } = setup();
    box.push(reply(1));
    box.push(reply(2));
    const sent: string[] = [];
    expect(await box.flush(async (m) => void sent.push(m.payload))).toBe(2);
    expect(sent).toEqual(['r1', 'u1', 'r2', 'u2']);
    expect(box.size).toBe(0);
  });

  it('keeps what a failed flush did not send, from the message that failed', async () => {
    const { box } = setup();
    box.push(reply(1));
    box.push(reply(2));
    const sent: string[] = [];
    let fail = 'u1';
    const send = async (m: OutboxMessage) => {
      if (m.payload === fail) throw new Error('broker away');
      sent.push(m.payload);
    };
    expect(await box.flush(send)).toBe(0);
    expect(box.size).toBe(2);
    fail = '';
    expect(await box.flush(send)).toBe(2);
    // r1 is not sent twice.
    expect(sent).toEqual(['r1', 'u1', 'r2', 'u2']);
  });

  it('expires replies older than the TTL and counts them; never sends them', async () => {
    const { box, expired, tick } = setup(3, 1000);
    box.push(reply(1));
    tick(600);
    box.push(reply(2));
    tick(500); // reply 1 is 1100 ms old, reply 2 600 ms
    const sent: string[] = [];
    expect(await box.flush(async (m) => void sent.push(m.payload))).toBe(1);
    expect(sent).toEqual(['r2', 'u2']);
    expect(expired).toEqual([{ topic: 'ai/response', why: 'ttl' }]);
    expect(box.expired).toBe(1);
  });

  it('is bounded: past `max` the oldest reply goes, reported as such', () => {
    const { box, expired } = setup(2);
    box.push(reply(1));
    box.push(reply(2));
    box.push(reply(3));
    expect(box.size).toBe(2);
    expect(expired).toEqual([{ topic: 'ai/response', why: 'full' }]);
    expect(box.drop()).toBe(2);
    expect(box.expired).toBe(3);
  });
});
