import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import type { Store } from '../store/sqlStore.js';
import { loginLimiter } from './adminStore.js';

/** Wrong passwords allowed per client address, then per account (any address), in the window. */
export const MAX_FAILURES = 5;
export const MAX_ACCOUNT_FAILURES = 10;
const FAILURE_WINDOW_S = 10 * 60;
/** There is one admin account (ADMIN_PASSWORD); a multi-user login would key by user name. */
const ADMIN_ACCOUNT = 'admin';

export interface LoginThrottle {
  /**
   * Counts one login attempt against the client, then (if the client may still try) against the
   * account, and says whether this attempt may be checked: set when a counter is past its limit,
   * with which one blocks it and for how long.
   */
  attempt(client: string): Promise<{ by: 'address' | 'account'; retryS: number } | undefined>;
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
 *
 * Every attempt is counted before its password is looked at, in one atomic increment-and-read of
 * the store (an upsert on both engines): reading the counter first and recording the failure after
 * let parallel guesses all read the same count below the limit and all be checked. The account is
 * counted only once the address may try, so that one address hammering the login does not lock
 * the account for everyone else; a right password then clears both counters.
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
    async attempt(client) {
      const { byAddress, byAccount } = await limiters;
      const address = await consume(byAddress, client);
      if (address.blocked) return { by: 'address', retryS: retryS(address.res.msBeforeNext) };
      const account = await consume(byAccount, ADMIN_ACCOUNT);
      if (account.blocked) return { by: 'account', retryS: retryS(account.res.msBeforeNext) };
      return undefined;
    },
    async succeeded(client) {
      const { byAddress, byAccount } = await limiters;
      await Promise.all([byAddress.delete(client), byAccount.delete(ADMIN_ACCOUNT)]);
    },
  };
}

function retryS(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

/**
 * One point, atomically: rate-limiter-flexible resolves while the points last and rejects with the
 * counter once they are spent (that is the throttle, not an error); a store failure rejects with
 * an Error, which the login must not take for a pass.
 */
async function consume(limiter: RateLimiterAbstract, key: string): Promise<{ blocked: boolean; res: RateLimiterRes }> {
  try {
    return { blocked: false, res: await limiter.consume(key) };
  } catch (err) {
    if (err instanceof RateLimiterRes) return { blocked: true, res: err };
    throw err;
  }
}
