import type { Logger } from '../../core/log.js';
import type { Db } from '../../core/store/db.js';
import type { Store } from '../../core/store/store.js';
import { loginLimiter } from './adminStore.js';

/** Wrong passwords allowed per client address, then per account (any address), in the window. */
export const MAX_FAILURES = 5;
export const MAX_ACCOUNT_FAILURES = 10;
const FAILURE_WINDOW_S = 10 * 60;
/** There is one admin account (ADMIN_PASSWORD); a multi-user login would key by user name. */
const ADMIN_ACCOUNT = 'admin';

export interface LoginThrottle {
  /** Set when the client may not try now: which counter blocks it and for how long. */
  blocked(client: string): Promise<{ by: 'address' | 'account'; retryS: number } | undefined>;
  /** Counts a wrong password against the client and the account. */
  failed(client: string): Promise<void>;
  /** A successful login clears both counters. */
  succeeded(client: string): Promise<void>;
}

/**
 * Failed logins are counted twice. Per client address (req.ip: TRUST_PROXY decides how many proxy
 * hops it skips), so one client does not lock the admin out for everyone; and per account, so
 * rotating X-Forwarded-For (or a botnet) gets MAX_ACCOUNT_FAILURES guesses per window in all, not 5
 * per address. The price: a spray of wrong passwords locks the account for the window.
 * rate-limiter-flexible keeps the counters in the store's engine (SQLite file, or Postgres shared
 * by every instance), so they survive a restart and hold whichever instance answers.
 */
export function loginThrottle(opts: { store: Store; db: Db; logger: Logger }): LoginThrottle {
  const limiter = (tableName: string, points: number) => loginLimiter({ ...opts, tableName, points, durationS: FAILURE_WINDOW_S });
  // Created one after the other: two CREATE TABLE IF NOT EXISTS at once can collide on Postgres.
  const limiters = (async () => {
    const address = await limiter('admin_login_failures_by_address', MAX_FAILURES);
    return { byAddress: address, byAccount: await limiter('admin_login_failures_by_account', MAX_ACCOUNT_FAILURES) };
  })();
  limiters.catch(() => undefined); // logged by loginLimiter; the login answers 500 then
  return {
    async blocked(client) {
      const { byAddress, byAccount } = await limiters;
      const [address, account] = await Promise.all([byAddress.get(client), byAccount.get(ADMIN_ACCOUNT)]);
      const byAddr = address && address.consumedPoints >= MAX_FAILURES ? address : null;
      const byAcct = account && account.consumedPoints >= MAX_ACCOUNT_FAILURES ? account : null;
      const blocking = [byAddr, byAcct].filter((r) => r !== null);
      if (blocking.length === 0) return undefined;
      const retryS = Math.max(1, Math.ceil(Math.max(...blocking.map((r) => r.msBeforeNext)) / 1000));
      return { by: byAddr ? 'address' : 'account', retryS };
    },
    async failed(client) {
      const { byAddress, byAccount } = await limiters;
      // consume() rejects once the points are spent: that is the throttle, not an error.
      await Promise.all([byAddress.consume(client).catch(() => undefined), byAccount.consume(ADMIN_ACCOUNT).catch(() => undefined)]);
    },
    async succeeded(client) {
      const { byAddress, byAccount } = await limiters;
      await Promise.all([byAddress.delete(client), byAccount.delete(ADMIN_ACCOUNT)]);
    },
  };
}
