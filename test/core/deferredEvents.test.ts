import { performance as perfHooks } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUSY_SLICE_MS, SLICE_MS, SessionEvents, sliceMs } from '../../core/deferredEvents.js';

/** One turn of the loop: the queue's setImmediate, scheduled before this one, has run. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('a session’s chart events from Gemini, after the audio of the loop iteration', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  /** What the loop did between two slices, as the queue reads it (the test runner's own work is not audio). */
  const loopWas = (active: number, utilization: number): void => {
    vi.spyOn(perfHooks, 'eventLoopUtilization').mockReturnValue({ active, idle: active / utilization - active, utilization });
  };

  /** `n` sessions with one event each, queued at once; each delivery costs 1 ms of the simulated clock. What was delivered, in order. */
  const burst = (n: number): number[] => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const got: number[] = [];
    const sessions = Array.from({ length: n }, () => new SessionEvents<number>((e) => {
      got.push(e);
      vi.advanceTimersByTime(1);
    }));
    sessions.forEach((s, i) => s.push(i));
    return got;
  };

  /** Two sessions logging their deliveries, as `a:event` and `b:event`, into one list. */
  const twoSessions = (): { got: string[]; a: SessionEvents<string>; b: SessionEvents<string> } => {
    const got: string[] = [];
    return { got, a: new SessionEvents<string>((e) => got.push(`a:${e}`)), b: new SessionEvents<string>((e) => got.push(`b:${e}`)) };
  };

  it('are delivered after the current task, in order, each session’s in its own order', async () => {
    const { got, a, b } = twoSessions();
    a.push('transcript');
    b.push('transcript');
    a.push('turnComplete');
    a.push('usage');
    got.push('audio');
    expect(got).toEqual(['audio']);
    await nextTurn();
    expect(got).toEqual(['audio', 'a:transcript', 'a:turnComplete', 'a:usage', 'b:transcript']);
  });

  it('the session’s next audio (no event may follow it by default) delivers that session’s pending events first, and only once', async () => {
    const { got, a, b } = twoSessions();
    b.push('transcript');
    a.push('transcript');
    a.beforeAudio();
    got.push('a:audio');
    a.push('usage');
    await nextTurn();
    expect(got).toEqual(['a:transcript', 'a:audio', 'b:transcript', 'a:usage']);
  });

  it('the next audio overtakes pending transcript fragments, not an event that must precede it (and what is before that)', async () => {
    const got: string[] = [];
    const mayFollowAudio = (e: string): boolean => e.startsWith('transcript') || e === 'usage';
    const a = new SessionEvents<string>((e) => got.push(e), mayFollowAudio);
    a.push('transcript 1');
    a.push('usage');
    a.beforeAudio();
    got.push('audio 1');
    a.push('transcript 2');
    a.push('interrupted');
    a.push('transcript 3');
    a.beforeAudio();
    got.push('audio 2');
    // Delivered once: the queue's turn finds nothing left.
    await nextTurn();
    expect(got).toEqual(['audio 1', 'transcript 1', 'usage', 'transcript 2', 'interrupted', 'transcript 3', 'audio 2']);
    // Once delivered, the count of events that must precede audio starts again from nothing.
    a.push('transcript 4');
    a.beforeAudio();
    got.push('audio 3');
    await nextTurn();
    expect(got.slice(-2)).toEqual(['audio 3', 'transcript 4']);
  });

  it('merges an event into the one before it while both are pending, never into one delivered', async () => {
    const got: string[] = [];
    // Fragments merge; an `x` fragment may not follow audio, so a merge into it must hold the audio.
    const merge = (last: string, next: string): string | undefined => (last.startsWith('fragment') && next.startsWith('fragment') ? `${last}+${next.slice(9)}` : undefined);
    const a = new SessionEvents<string>((e) => got.push(e), (e) => !e.includes('x'), merge);
    a.push('fragment a');
    a.push('fragment b');
    a.push('turnComplete');
    a.push('fragment c');
    await nextTurn();
    expect(got).toEqual(['fragment a+b', 'turnComplete', 'fragment c']);
    a.push('fragment d');
    a.push('fragment x');
    a.beforeAudio();
    got.push('audio');
    expect(got.slice(3)).toEqual(['fragment d+x', 'audio']);
  });

  it('an event pushed while delivering is delivered after the ones before it', async () => {
    const got: string[] = [];
    const a: SessionEvents<string> = new SessionEvents<string>((e) => {
      got.push(e);
      if (e === 'first') a.push('pushed by first');
    });
    a.push('first');
    a.push('second');
    await nextTurn();
    expect(got).toEqual(['first', 'second', 'pushed by first']);
  });

  it('nothing is delivered once the session’s actor stopped, pending or pushed later', async () => {
    const got: string[] = [];
    const a = new SessionEvents<string>((e) => {
      got.push(e);
      if (e === 'closing') a.close();
    });
    a.push('transcript');
    a.close();
    a.push('usage');
    a.flush();
    await nextTurn();
    expect(got).toEqual([]);
    const c = new SessionEvents<string>((e) => {
      got.push(e);
      if (e === 'closing') c.close();
    });
    c.push('closing');
    c.push('after the close');
    await nextTurn();
    expect(got).toEqual(['closing']);
  });

  it(`takes ${BUSY_SLICE_MS} ms slices while other work keeps the loop busy (audio first), ${SLICE_MS} ms otherwise`, () => {
    // A burst of replies: 30 ms of Gemini messages and candidate chunks since the last slice.
    expect(sliceMs({ active: 30, utilization: 1 })).toBe(BUSY_SLICE_MS);
    // Slices back to back, or a loop that waited for the sockets most of the time.
    expect(sliceMs({ active: 0.2, utilization: 1 })).toBe(SLICE_MS);
    expect(sliceMs({ active: 5, utilization: 0.2 })).toBe(SLICE_MS);
  });

  it(`a burst is worked through in slices of ${SLICE_MS} ms, with the loop turning between two slices`, async () => {
    loopWas(0.1, 1);
    const got = burst(5);
    await nextTurn();
    expect(got).toEqual([0, 1]);
    await nextTurn();
    expect(got).toEqual([0, 1, 2, 3]);
    await nextTurn();
    expect(got).toEqual([0, 1, 2, 3, 4]);
  });

  it(`while audio keeps the loop busy, a burst is worked through ${BUSY_SLICE_MS} ms at a time`, async () => {
    loopWas(30, 1);
    const got = burst(3);
    // One session per turn (a slice always delivers at least one session's events).
    await nextTurn();
    expect(got).toEqual([0]);
    await nextTurn();
    expect(got).toEqual([0, 1]);
    await nextTurn();
    expect(got).toEqual([0, 1, 2]);
  });
});
