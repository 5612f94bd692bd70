import type { Kysely } from 'kysely';
import type { Store } from '../../core/store/sqlStore.js';

/**
 * Claims with an expiry in the store (table t2_claims), renewed by their instance while it runs:
 *  - `candidate:<sub>`: the instance that runs this candidate's live session (one per candidate
 *    across instances; within an instance the root actor decides: replace or resume);
 *  - `instance:<id>`: the instance is alive (its live rows are not stranded);
 *  - `grade:<session>`: one instance grades a session left ungraded, not two.
 *
 * Why rows with a lease and not `pg_try_advisory_lock`: the same code and the same conformance
 * tests run on SQLite and Postgres; the clock is handed in, so expiry is tested without sleeping;
 * it survives a transaction-mode PgBouncer (session advisory locks do not); and it does not pin a
 * connection per live session or drop every lock silently when one connection blips. The cost:
 * after a kill -9 the dead instance's candidates wait up to the TTL before another instance takes
 * them (an advisory lock would free them as soon as Postgres notices the closed socket).
 */
export interface ClaimsOptions {
  store: Store;
  instanceId: string;
  /** How long a claim lives without renewal; the instance renews every third of it. */
  ttlMs: number;
  now?: () => number;
}

export type Acquired = { ok: true } | { ok: false; holder: string };

interface ClaimRow {
  key: string;
  instance_id: string;
  session_id: string | null;
  /** bigint: `pg` returns it as a string. */
  expires_at: number | string;
}

type ClaimTables = { t2_claims: ClaimRow };

export const candidateKey = (sub: string): string => `candidate:${sub}`;
export const gradeKey = (sessionId: string): string => `grade:${sessionId}`;
/** One instance assembles a recording a drain left pending (two writing one WAV would corrupt it). */
export const recordingKey = (sessionId: string): string => `recording:${sessionId}`;
const INSTANCE_PREFIX = 'instance:';

export class Claims {
  private readonly db: Kysely<ClaimTables>;
  private readonly now: () => number;
  /** Keys this instance holds, with how many of its sessions hold each (release at zero). */
  private readonly held = new Map<string, number>();
  /** Keys let go whose delete failed (store unreachable): retried by `renew`, never renewed. */
  private readonly toDelete = new Set<string>();
  /**
   * When the last renewal that reached the store started: every claim this instance holds expires
   * at this time + TTL or later (a key acquired since expires later still). -Infinity before register.
   */
  private renewedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: ClaimsOptions) {
    this.db = opts.store.db.withTables<ClaimTables>();
    this.now = opts.now ?? Date.now;
  }

  get instanceId(): string {
    return this.opts.instanceId;
  }

  /** At start: what this instance's previous run held is let go, and the instance says it is alive. */
  async register(): Promise<void> {
    await this.opts.store.writeAll([this.db.deleteFrom('t2_claims').where('instance_id', '=', this.opts.instanceId)]);
    this.held.clear();
    const at = this.now();
    const r = await this.acquire(`${INSTANCE_PREFIX}${this.opts.instanceId}`);
    if (!r.ok) throw new Error(`instance id ${this.opts.instanceId} is held by ${r.holder}`);
    this.renewedAt = at;
  }

  /** How often the instance renews: a third of the TTL (at least 100 ms). */
  get renewEveryMs(): number {
    return Math.max(100, Math.floor(this.opts.ttlMs / 3));
  }

  /**
   * Self-fencing: true once the last renewal that reached the store is older than the TTL less one
   * renewal period. From then on this instance's claims may expire before its next renewal
   * completes (at renewedAt + TTL) and another instance may close and grade its sessions: it must
   * stop acting as their owner now, one renewal period before that can happen. Read from the
   * clock, not from a renewal's outcome: a renewal that hangs (a pool waiting for a connection)
   * fences as one that fails.
   */
  fenced(): boolean {
    return this.now() - this.renewedAt >= this.opts.ttlMs - this.renewEveryMs;
  }

  /** How long until the claims renewed last expire (≤ 0: they may have expired already). */
  expiresInMs(): number {
    return this.renewedAt + this.opts.ttlMs - this.now();
  }

  /**
   * Takes `key` if it is free, expired, or already this instance's (then one more holder here).
   * One statement: two instances racing for a key cannot both get it.
   */
  async acquire(key: string, sessionId: string | null = null): Promise<Acquired> {
    const now = this.now();
    const me = this.opts.instanceId;
    const expires = now + this.opts.ttlMs;
    const r = await this.db.insertInto('t2_claims')
      .values({ key, instance_id: me, session_id: sessionId, expires_at: expires })
      .onConflict((oc) => oc.column('key')
        .doUpdateSet({ instance_id: me, session_id: sessionId, expires_at: expires })
        .where((eb) => eb.or([eb('t2_claims.instance_id', '=', me), eb('t2_claims.expires_at', '<', now)])))
      .executeTakeFirst();
    if (Number(r.numInsertedOrUpdatedRows ?? 0n) > 0) {
      this.held.set(key, (this.held.get(key) ?? 0) + 1);
      return { ok: true };
    }
    const row = await this.db.selectFrom('t2_claims').select('instance_id').where('key', '=', key).executeTakeFirst();
    return { ok: false, holder: row?.instance_id ?? 'unknown' };
  }

  /** One holder fewer; the row goes when this instance's last holder of `key` lets go. */
  async release(key: string): Promise<void> {
    const n = (this.held.get(key) ?? 0) - 1;
    if (n > 0) {
      this.held.set(key, n);
      return;
    }
    this.held.delete(key);
    this.toDelete.add(key);
    await this.deletePending();
  }

  /**
   * Pushes back the expiry of what this instance holds (called every third of the TTL) — only the
   * keys it still holds: a key whose release failed is deleted now, not kept alive.
   */
  async renew(): Promise<void> {
    const at = this.now();
    await this.deletePending();
    const keys = [...this.held.keys()];
    if (keys.length > 0) {
      await this.opts.store.writeAll([
        this.db.updateTable('t2_claims').set({ expires_at: at + this.opts.ttlMs })
          .where('instance_id', '=', this.opts.instanceId).where('key', 'in', keys),
      ]);
    }
    this.renewedAt = at;
  }

  private async deletePending(): Promise<void> {
    const keys = [...this.toDelete].filter((k) => !this.held.has(k));
    if (keys.length === 0) return;
    await this.opts.store.writeAll([this.db.deleteFrom('t2_claims').where('instance_id', '=', this.opts.instanceId).where('key', 'in', keys)]);
    for (const k of keys) this.toDelete.delete(k);
  }

  /** Instances whose claim has not expired (this one included once registered). */
  async alive(): Promise<string[]> {
    const rows = await this.db.selectFrom('t2_claims').select('instance_id')
      .where('key', 'like', `${INSTANCE_PREFIX}%`).where('expires_at', '>', this.now()).execute();
    return rows.map((r) => r.instance_id);
  }

  /** A clean stop lets everything go at once: other instances need not wait for the TTL. */
  async stop(): Promise<void> {
    this.held.clear();
    this.toDelete.clear();
    await this.opts.store.writeAll([this.db.deleteFrom('t2_claims').where('instance_id', '=', this.opts.instanceId)]);
  }
}
