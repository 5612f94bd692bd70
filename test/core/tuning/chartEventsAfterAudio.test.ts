import { afterEach, describe, expect, it } from 'vitest';
import { setTuningOff } from '../../../core/tuning/switches.js';
import { BUSY_SLICE_MS, DeferredQueue, SLICE_MS, SessionEvents, sliceMs, type LoopSignal } from '../../../core/tuning/chartEventsAfterAudio.js';

/** One turn of the loop: the queue's setImmediate, scheduled before this one, has run. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A loop whose clock only moves when a test says so and whose load is what the test says it was:
 * the queue's slices then depend on the test alone, never on how busy the machine running it is.
 */
function simulatedLoop(load = { active: 0, utilization: 0 }): { loop: LoopSignal; advance(ms: number): void } {
  let t = 0;
  return {
    loop: { now: () => t, sinceMark: () => load, mark: () => undefined },
    advance: (ms) => void (t += ms),
  };
}

describe('a session’s chart events from Gemini, after the audio of the loop iteration', () => {
  /** `n` sessions with one event each, queued at once; each delivery costs 1 ms of the simulated clock. What was delivered, in order. */
  const burst = (n: number, load: { active: number; utilization: number }): number[] => {
    const sim = simulatedLoop(load);
    const queue = new DeferredQueue(sim.loop);
    const got: number[] = [];
    const sessions = Array.from({ length: n }, () => new SessionEvents<number>((e) => {
      got.push(e);
      sim.advance(1);
    }, undefined, undefined, queue));
    sessions.forEach((s, i) => s.push(i));
    return got;
  };

  /** A session on its own simulated queue (idle loop, frozen clock), delivering to `deliver`. */
  const session = <E>(
    deliver: (e: E) => void,
    mayFollowAudio?: (e: E) => boolean,
    merge?: (last: E, next: E) => E | undefined,
    queue = new DeferredQueue(simulatedLoop().loop),
  ): SessionEvents<E> => new SessionEvents<E>(deliver, mayFollowAudio, merge, queue);

  /**
   * Two sessions logging their deliveries, as `a:event` and `b:event`, into one list. They share a
   * queue whose loop is under the load given (default: idle) and whose clock never moves.
   */
  const twoSessions = (load?: { active: number; utilization: number }): { got: string[]; a: SessionEvents<string>; b: SessionEvents<string> } => {
    const got: string[] = [];
    const queue = new DeferredQueue(simulatedLoop(load).loop);
    return { got, a: session((e: string) => got.push(`a:${e}`), undefined, undefined, queue), b: session((e: string) => got.push(`b:${e}`), undefined, undefined, queue) };
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
    const a = session<string>((e) => got.push(e), mayFollowAudio);
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
    const a = session<string>((e) => got.push(e), (e) => !e.includes('x'), merge);
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
    const a: SessionEvents<string> = session<string>((e) => {
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
    const a = session<string>((e) => {
      got.push(e);
      if (e === 'closing') a.close();
    });
    a.push('transcript');
    a.close();
    a.push('usage');
    a.flush();
    await nextTurn();
    expect(got).toEqual([]);
    const c = session<string>((e) => {
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
    const got = burst(5, { active: 0.1, utilization: 1 });
    await nextTurn();
    expect(got).toEqual([0, 1]);
    await nextTurn();
    expect(got).toEqual([0, 1, 2, 3]);
    await nextTurn();
    expect(got).toEqual([0, 1, 2, 3, 4]);
  });

  it(`while audio keeps the loop busy, a burst is worked through ${BUSY_SLICE_MS} ms at a time`, async () => {
    const got = burst(3, { active: 30, utilization: 1 });
    // One session per turn (a slice always delivers at least one session's events).
    await nextTurn();
    expect(got).toEqual([0]);
    await nextTurn();
    expect(got).toEqual([0, 1]);
    await nextTurn();
    expect(got).toEqual([0, 1, 2]);
  });
});

describe('TUNING_OFF=chart-events-after-audio', () => {
  afterEach(() => setTuningOff([]));

  it('delivers each event when pushed, in order, nothing merged, nothing left for the queue', async () => {
    setTuningOff(['chart-events-after-audio']);
    const got: string[] = [];
    const queue = new DeferredQueue({ now: () => 0, sinceMark: () => ({ active: 0, utilization: 0 }), mark: () => undefined });
    const s = new SessionEvents<string>((e) => {
      got.push(e);
      // A delivery that pushes an event: it follows the one being delivered, it does not cut in.
      if (e === 'turnComplete') s.push('usage');
      got.push(`/${e}`);
    }, () => true, (last, next) => `${last}+${next}`, queue);
    s.push('transcript');
    expect(got).toEqual(['transcript', '/transcript']); // before any audio of the same task
    s.push('turnComplete');
    s.push('interrupted');
    expect(got).toEqual(['transcript', '/transcript', 'turnComplete', '/turnComplete', 'usage', '/usage', 'interrupted', '/interrupted']);
    s.beforeAudio();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(got).toHaveLength(8); // the queue delivered nothing a second time
    s.close();
    s.push('late');
    expect(got).toHaveLength(8);
  });

  it('on again, events wait for the queue', async () => {
    setTuningOff(['chart-events-after-audio']);
    setTuningOff([]);
    const got: string[] = [];
    const s = new SessionEvents<string>((e) => got.push(e));
    s.push('transcript');
    expect(got).toEqual([]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(got).toEqual(['transcript']);
  });
});
