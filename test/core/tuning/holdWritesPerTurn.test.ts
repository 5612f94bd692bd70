import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalesceWritesOfThisTurn, releaseHeldWrites } from '../../../core/tuning/holdWritesPerTurn.js';
import { recordWrites } from '../../skull/socketWrites.js';
import { setTuningOff } from '../../../core/tuning/switches.js';
import { embeddedBroker, type TestBroker } from '../../skull/support.js';

/**
 * The edge's write holding (core/tuning/holdWritesPerTurn.ts) on a real connection to a real
 * broker: what a turn writes is held until the end of the turn, or until the edge releases it.
 */
const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('holdWritesPerTurn', () => {
  let broker: TestBroker;
  let client: MqttClient;
  beforeAll(async () => {
    broker = await embeddedBroker();
    client = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
  });
  afterAll(async () => {
    await client?.endAsync();
    await broker?.close();
  });

  it('holds the writes of the turn and sends them as one write at its end', async () => {
    const writes = recordWrites(client.stream);
    coalesceWritesOfThisTurn(client);
    client.publish('coalesce/a', '1');
    client.publish('coalesce/a', '2');
    await nextTick(); // mqtt-packet's own per-packet cork has ended
    expect(writes).toHaveLength(0);
    await endOfTurn();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.includes('coalesce/a')).toBe(true);
  });

  it('lets the held writes go at once when released, and the end of the turn then changes nothing', async () => {
    const writes = recordWrites(client.stream);
    coalesceWritesOfThisTurn(client);
    client.publish('coalesce/b', '1');
    await nextTick();
    expect(writes).toHaveLength(0);
    client.publish('coalesce/b', 'reply');
    releaseHeldWrites(client);
    // Written before releaseHeldWrites returns, not at mqtt-packet's next-tick uncork of the
    // packet just published: what the caller does after the release no longer delays it.
    expect(writes).toHaveLength(1);
    expect(writes[0]!.includes('reply')).toBe(true);
    client.publish('coalesce/b', 'after');
    expect(writes).toHaveLength(1); // a packet published after the release keeps its own cork till the next tick
    await nextTick();
    expect(writes).toHaveLength(2);
    expect((client.stream as unknown as { writableCorked: number }).writableCorked).toBe(0);
    await endOfTurn();
    // Not uncorked a second time: a later write is not held by a leftover cork either.
    client.publish('coalesce/b', '2');
    await nextTick();
    expect(writes).toHaveLength(3);
    releaseHeldWrites(client); // nothing held: no-op
    expect((client.stream as unknown as { writableCorked: number }).writableCorked).toBe(0);
  });

  it('with TUNING_OFF=mqtt-writes-per-turn holds nothing past mqtt-packet’s own tick, and the packets arrive in order', async () => {
    setTuningOff(['mqtt-writes-per-turn']);
    try {
      const sub = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
      const got: string[] = [];
      const all = new Promise<void>((resolve) => sub.on('message', (_t, p) => got.push(p.toString()) === 3 && resolve()));
      await sub.subscribeAsync('coalesce/off', { qos: 1 });
      const writes = recordWrites(client.stream);
      coalesceWritesOfThisTurn(client);
      client.publish('coalesce/off', '1');
      client.publish('coalesce/off', '2');
      await nextTick(); // mqtt-packet's per-packet cork ends: the packets are written before the end of the turn
      expect(writes.length).toBeGreaterThan(0);
      expect((client.stream as unknown as { writableCorked: number }).writableCorked).toBe(0);
      client.publish('coalesce/off', '3');
      releaseHeldWrites(client); // nothing held: no-op
      await nextTick();
      await all;
      expect(got).toEqual(['1', '2', '3']);
      await sub.endAsync();
    } finally {
      setTuningOff([]);
    }
  });
});
