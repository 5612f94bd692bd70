import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../core/store/sqlStore.js';
import { storeOf } from '../../core/store/appStore.js';
import { SessionStore } from '../../actors/t2/sessionStore.js';
import { LiveClient, startT2, type T2Env } from './support.js';

/**
 * Self-fencing (actors/t2/surface.ts): an instance whose claim renewals fail stops acting as the
 * owner of its sessions one renewal period before its claims can expire — sessions stopped
 * unsaved and closed 1011 STORE_UNAVAILABLE, new ones refused, `unready` for /readyz — and is
 * ready again once a renewal succeeds, closing and grading (once) what it stopped.
 * Simulated time: the claims' clock is handed in and the renewal interval is a fake timer.
 */
const TTL = 3000;
const PERIOD = TTL / 3;

describe('T2 self-fencing when claim renewals fail', () => {
  let env: T2Env | undefined;

  afterEach(async () => {
    await env?.close();
    env = undefined;
    vi.useRealTimers();
  });

  it('fences one period before the claims expire, refuses and ends sessions unsaved; unfences, then closes and grades them once', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let now = 1_000_000;
    let cut = false;
    const flaky = (s: Store): Store => ({ ...s, writeAll: (q) => (cut ? Promise.reject(new Error('store unreachable')) : s.writeAll(q)) });
    env = await startT2({ env: { T2_LEASE_TTL_MS: String(TTL) }, surface: { now: () => now, store: flaky } });
    const e = env;
    const sessions = new SessionStore(storeOf(e.ctx), 'unused');
    const open = async (sub: string): Promise<LiveClient> => LiveClient.open(e, { token: await e.mint('premium', sub), sujet: 'club-de-sport', mode: 'text' });
    // One renewal period: the claims' clock and the renewal timer move together.
    const tick = async (): Promise<void> => {
      now += PERIOD;
      await vi.advanceTimersByTimeAsync(PERIOD);
    };

    const c = await open('cand-fence');
    await c.until(() => c.states().includes('listening'), 'listening');
    c.send({ type: 'text', text: 'Bonjour, je voudrais savoir les horaires du club, s’il vous plaît.' });
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'a reply');
    const [row] = await storeOf(e.ctx).db.withTables<{ t2_sessions: { id: string; status: string } }>().selectFrom('t2_sessions').select(['id', 'status']).execute();
    expect(row).toMatchObject({ status: 'live' });

    // The store stops taking writes. One period later the renewal failed, and the claims (renewed
    // at start, expiring at start + TTL) are still safe for two periods: nothing happens yet.
    cut = true;
    await tick();
    expect(e.surface.unready?.()).toBeUndefined();
    expect(c.closeCode).toBeUndefined();

    // Two periods without a renewal: the claims could expire before the next one completes. The
    // session is stopped here, unsaved, and the candidate told why (1011, the store's failure).
    await tick();
    const { code } = await c.closed;
    expect(code).toBe(1011);
    expect(c.json.at(-1)).toMatchObject({ type: 'error', code: 1011, name: 'STORE_UNAVAILABLE', message: expect.stringContaining('base de données') });
    expect(e.surface.unready?.()).toMatch(/fenced/);
    expect(await sessions.get(row!.id)).toMatchObject({ status: 'live', report: null, production_id: null });
    expect(e.corrections.oral).toHaveLength(0);

    // A new session is refused before it starts, with the same words.
    const refused = await open('cand-new');
    expect((await refused.closed).code).toBe(1011);
    expect(refused.json).toEqual([{ type: 'error', code: 1011, name: 'STORE_UNAVAILABLE', message: expect.any(String) }]);

    // The store answers again: the next renewal succeeds, the instance is ready, and the session it
    // stopped (still live: no other instance swept it) is closed `interrupted` and graded, once.
    cut = false;
    await tick();
    await vi.waitFor(async () => expect(await sessions.get(row!.id)).toMatchObject({ status: 'graded', end_reason: 'interrupted' }), { timeout: 5000, interval: 20 });
    expect(e.surface.unready?.()).toBeUndefined();
    expect(e.corrections.oral).toHaveLength(1);
    await tick();
    await tick();
    expect(e.corrections.oral).toHaveLength(1);

    // The candidate's claim (its release failed during the cut) was let go: a new session starts.
    const again = await open('cand-fence');
    await again.until(() => again.states().includes('listening'), 'a new session after the fence');
    again.ws.close();
  });

  it('a tick that is only late (a busy machine) renews instead of fencing; if that renewal fails, it fences at once', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let now = 1_000_000;
    let cut = false;
    const flaky = (s: Store): Store => ({ ...s, writeAll: (q) => (cut ? Promise.reject(new Error('store unreachable')) : s.writeAll(q)) });
    env = await startT2({ env: { T2_LEASE_TTL_MS: String(TTL) }, surface: { now: () => now, store: flaky } });
    const e = env;
    const c = await LiveClient.open(e, { token: await e.mint('premium', 'cand-late'), sujet: 'club-de-sport', mode: 'text' });
    await c.until(() => c.states().includes('listening'), 'listening');

    // The loop was held for two periods (the renewal timer could not fire): the clock moved, the
    // timer fires once, late. The last renewal reached the store and the claims have not expired:
    // the session goes on, the instance stays ready, and the renewal runs now.
    now += 2 * PERIOD + 100;
    await vi.advanceTimersByTimeAsync(PERIOD);
    await vi.waitFor(() => expect(e.surface.unready?.()).toBeUndefined());
    c.send({ type: 'text', text: 'Bonjour, quels sont les horaires du club ?' });
    await c.until(() => c.json.some((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final), 'a reply after the late tick');
    expect(c.closeCode).toBeUndefined();
    expect(c.json.some((m) => m.type === 'error')).toBe(false);

    // Late again, but this time the store is gone: the renewal fails, and it fences at once.
    cut = true;
    now += 2 * PERIOD + 100;
    await vi.advanceTimersByTimeAsync(PERIOD);
    const { code } = await c.closed;
    expect(code).toBe(1011);
    expect(c.json.at(-1)).toMatchObject({ type: 'error', name: 'STORE_UNAVAILABLE' });
    expect(e.surface.unready?.()).toMatch(/fenced/);
    cut = false;
  });
});
