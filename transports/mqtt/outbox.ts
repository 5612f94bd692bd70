/**
 * Replies produced while the broker is away (docs/skull.md#topics: a reply is never dropped
 * silently). Bounded and with a time to live: a spoken answer that arrives a minute late is
 * worse than none, so each entry expires after `ttlMs`; past `max` entries the oldest goes.
 * Expired and overflowing entries are reported (logged and counted by the caller), never lost
 * without a trace. Delivery order is kept.
 *
 * mqtt.js has its own offline queue, but it is unbounded and has no expiry; the Skull transport
 * therefore publishes only while connected and keeps what it could not send here.
 */

export interface OutboxMessage {
  topic: string;
  payload: string;
}

/** One reply: its messages (ai/response, then ai/usage), sent in order. */
interface Entry {
  messages: OutboxMessage[];
  keptAt: number;
}

export interface OutboxOptions {
  max: number;
  ttlMs: number;
  now: () => number;
  /** An entry that expired (or was pushed out by a newer one) before it could be sent. */
  onExpired: (messages: OutboxMessage[], why: 'ttl' | 'full', ageMs: number) => void;
}

export class Outbox {
  private entries: Entry[] = [];
  private expiredCount = 0;

  constructor(private readonly opts: OutboxOptions) {}

  get size(): number {
    return this.entries.length;
  }

  /** Replies that expired or overflowed since the start. */
  get expired(): number {
    return this.expiredCount;
  }

  /** Keeps one reply's messages, to send once connected. */
  push(messages: OutboxMessage[]): void {
    this.sweep();
    if (messages.length === 0) return;
    this.entries.push({ messages: [...messages], keptAt: this.opts.now() });
    if (this.entries.length > this.opts.max) this.expire(this.entries.shift()!, 'full');
  }

  /** Drops (and reports) the entries older than the TTL. */
  sweep(): void {
    const now = this.opts.now();
    while (this.entries.length > 0 && now - this.entries[0]!.keptAt > this.opts.ttlMs) this.expire(this.entries.shift()!, 'ttl');
  }

  /**
   * Sends what is kept, oldest first, through `send`; stops at the first failure and keeps what
   * was not sent for the next call. Returns how many replies were sent whole.
   */
  async flush(send: (message: OutboxMessage) => Promise<void>): Promise<number> {
    let sent = 0;
    for (;;) {
      this.sweep();
      const next = this.entries[0];
      if (!next) return sent;
      while (next.messages.length > 0) {
        try {
          await send(next.messages[0]!);
        } catch {
          return sent;
        }
        next.messages.shift();
      }
      if (this.entries[0] === next) this.entries.shift();
      sent++;
    }
  }

  /** Empties the outbox (a stop with the broker away), reporting each entry as expired. */
  drop(): number {
    const n = this.entries.length;
    for (const e of this.entries.splice(0)) this.expire(e, 'ttl');
    return n;
  }

  private expire(e: Entry, why: 'ttl' | 'full'): void {
    this.expiredCount++;
    this.opts.onExpired(e.messages, why, this.opts.now() - e.keptAt);
  }
}
