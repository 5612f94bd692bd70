import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalesceWritesOfThisTurn, releaseHeldWrites } from '../../transports/mqtt/coalesceWrites.js';
import { recordWrites } from './socketWrites.js';
import { embeddedBroker, type TestBroker } from './support.js';

/**
 * The edge's write holding (transports/mqtt/coalesceWrites.ts) on a real connection to a real
 * broker: what a turn writes is held until the end of the turn, or until the edge releases it.
 */
const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('coalesceWrites', () => {
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
});
