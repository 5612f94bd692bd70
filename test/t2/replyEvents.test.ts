import { afterEach, describe, expect, it, vi } from 'vitest';
import { SLICE_MS, SessionEvents } from '../../actors/t2/replyEvents.js';

/** One turn of the loop: the queue's setImmediate, scheduled before this one, has run. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('a session’s chart events from Gemini, after the audio of the loop iteration', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('are delivered after the current task, in order, each session’s in its own order', async () => {
    const got: string[] = [];
    const a = new SessionEvents<string>((e) => got.push(`a:${e}`));
    const b = new SessionEvents<string>((e) => got.push(`b:${e}`));
    a.push('transcript');
    b.push('transcript');
    a.push('turnComplete');
    a.push('usage');
    got.push('audio');
    expect(got).toEqual(['audio']);
    await nextTurn();
    expect(got).toEqual(['audio', 'a:transcript', 'a:turnComplete', 'a:usage', 'b:transcript']);
  });

  it('a flush (the session’s next audio) delivers that session’s pending events first, and only once', async () => {
    const got: string[] = [];
    const a = new SessionEvents<string>((e) => got.push(`a:${e}`));
    const b = new SessionEvents<string>((e) => got.push(`b:${e}`));
    b.push('transcript');
    a.push('transcript');
    a.flush();
    got.push('a:audio');
    a.push('usage');
    await nextTurn();
    expect(got).toEqual(['a:transcript', 'a:audio', 'b:transcript', 'a:usage']);
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

  it(`a burst is worked through in slices of ${SLICE_MS} ms, with the loop turning between two slices`, async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const got: number[] = [];
    // Each session's event costs 1 ms of the (simulated) clock.
    const sessions = Array.from({ length: 5 }, () => new SessionEvents<number>((e) => {
      got.push(e);
      vi.advanceTimersByTime(1);
    }));
    sessions.forEach((s, i) => s.push(i));
    await nextTurn();
    expect(got).toEqual([0, 1]);
    await nextTurn();
    expect(got).toEqual([0, 1, 2, 3]);
    await nextTurn();
    expect(got).toEqual([0, 1, 2, 3, 4]);
  });
});
