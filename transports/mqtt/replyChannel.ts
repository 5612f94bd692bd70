import type { MqttClient } from 'mqtt';
import type { Logger } from '../../core/log.js';
import { Outbox, type OutboxMessage } from './outbox.js';

/**
 * How a Skull device's replies reach the broker (one channel per device, shared by the single
 * device service and the fleet): QoS 1 publishes that resolve on the broker's PUBACK, and an
 * outbox for what could not be sent while the broker was away (bounded, with a TTL; order kept).
 */

/** Not connected, or the connection went before the broker's ack: the reply is kept. */
class BrokerAway extends Error {}

/**
 * QoS 1 publish that resolves on the PUBACK. Offline, or a connection lost before the ack, is
 * BrokerAway: the message is taken back from mqtt.js (whose own offline queue has no bound and no
 * expiry) so that the caller keeps it in its outbox, and mqtt.js does not resend it too.
 */
export function ackedPublisher(client: MqttClient): (message: OutboxMessage) => Promise<void> {
  return (message) =>
    new Promise<void>((resolve, reject) => {
      if (!client.connected) return reject(new BrokerAway('mqtt offline'));
      client.publish(message.topic, message.payload, { qos: 1 }, (err) => {
        client.off('close', onClose);
        if (err) reject(err);
        else resolve();
      });
      const messageId = client.getLastMessageId();
      function onClose(): void {
        client.removeOutgoingMessage(messageId);
        reject(new BrokerAway('mqtt connection lost before the ack'));
      }
      client.once('close', onClose);
    });
}

export interface ReplyChannelOptions {
  publish: (message: OutboxMessage) => Promise<void>;
  connected: () => boolean;
  max: number;
  ttlMs: number;
  now: () => number;
  log: Logger;
}

export class ReplyChannel {
  readonly outbox: Outbox;
  /** Replies the broker refused (not just away), since the start. */
  publishErrors = 0;
  private flushing: Promise<void> | undefined;

  constructor(private readonly opts: ReplyChannelOptions) {
    this.outbox = new Outbox({
      max: opts.max,
      ttlMs: opts.ttlMs,
      now: opts.now,
      onExpired: (messages, why, ageMs) =>
        opts.log.warn({ topic: messages[0]?.topic, why, ageMs, ttlMs: opts.ttlMs }, why === 'ttl' ? 'kept reply expired before the broker came back: not sent' : 'outbox full: the oldest kept reply is dropped'),
    });
  }

  get isFlushing(): boolean {
    return this.flushing !== undefined;
  }

  /** Sends the kept replies, oldest first (one flush at a time). */
  flush(): Promise<void> {
    this.flushing ??= (async () => {
      const before = this.outbox.size;
      const sent = await this.outbox.flush(async (m) => {
        try {
          await this.opts.publish(m);
        } catch (err) {
          // Refused by the broker (not just away): counted; the reply stays until its TTL.
          if (!(err instanceof BrokerAway)) this.publishErrors++;
          throw err;
        }
      });
      if (sent > 0) this.opts.log.info({ sent, left: this.outbox.size, expired: before - sent - this.outbox.size }, 'kept replies published after the broker came back');
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** One reply (ai/response, then ai/usage): published now, or kept behind the replies already kept. */
  async send(messages: OutboxMessage[]): Promise<void> {
    if (this.outbox.size > 0 || this.flushing) {
      this.outbox.push(messages);
      if (this.opts.connected()) void this.flush();
      return;
    }
    for (let i = 0; i < messages.length; i++) {
      try {
        await this.opts.publish(messages[i]!);
      } catch (err) {
        if (!(err instanceof BrokerAway)) {
          this.publishErrors++;
          throw err;
        }
        this.outbox.push(messages.slice(i));
        this.opts.log.warn({ kept: this.outbox.size, ttlMs: this.opts.ttlMs, reason: err.message }, 'broker away: reply kept until it is back');
        return;
      }
    }
  }
}
