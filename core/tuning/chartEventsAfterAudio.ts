import { performance as perfHooks } from 'node:perf_hooks';
import { tuningOn } from './switches.js';

/**
 * A session's chart events that ride along its audio, delivered after the audio of the same loop
 * iteration instead of in the middle of it (docs/runtime-tuning.md): Gemini's (transcript
 * fragments, turn boundaries, usage, the link's own events: actors/t2/geminiInterlocutor.ts) and
 * the T2 socket's once-a-second `client.activity` (transports/ws/t2liveSocket.ts).
 *
 * With many sessions, Gemini's replies come in bursts: one read of the sockets can carry a
 * hundred sessions' messages. Their audio goes to the pages at once (actors/t2/audioPipe.ts), but
 * each message's chart events cost tens of µs (xstate, the page's frames, the turn writes), and
 * run inline they made the later sessions' audio — and the candidates' chunks read after the
 * burst — wait for every earlier session's bookkeeping. Queued here, they run in `setImmediate`
 * once the loop has read its sockets, in slices of {@link SLICE_MS}, so that audio read meanwhile
 * is forwarded between two slices.
 *
 * A session's events keep their order among themselves. Against its audio, they keep it where it
 * matters: before the session's next audio leaves, {@link SessionEvents.beforeAudio} delivers what
 * is pending if any of it must reach the chart first (a turn's end, an interruption — the page
 * empties its playback queue on it —, the link's events). Transcript fragments and usage may be
 * overtaken by the audio that came after them, by one slice at most: the first audio of a reply
 * does not wait for the bookkeeping of the candidate's transcript that precedes it (a chart
 * macrostep, a page frame, a turn write), which, in a burst of a hundred sessions' replies,
 * would make the later sessions' first audio wait for all the earlier sessions'.
 *
 * With `TUNING_OFF=chart-events-after-audio` each event is delivered when pushed (in order; an
 * event pushed while one is being delivered follows it), as without this queue.
 */

/** How long one slice of queued events may hold the loop before the sockets are read again. */
export const SLICE_MS = 2;
/**
 * The slice while the loop is busy with other work (audio, mostly): when, since the last slice,
 * it spent more than {@link BUSY_MS} and most of its time on other callbacks. In a burst of
 * replies each loop iteration reads tens of milliseconds of Gemini messages and candidate chunks;
 * a 2 ms slice after each made every chunk read in the next iteration wait for it too, and the
 * candidates' chunk latency p99 is made of those bursts. The events are
 * then delivered once the burst is over, at the full slice; a session's own audio still flushes
 * its events first, so they never fall behind it.
 */
export const BUSY_SLICE_MS = 0.25;
const BUSY_MS = 1;

/** The slice, from what the loop did since the last one (`eventLoopUtilization` over that span). */
export function sliceMs(since: { active: number; utilization: number }): number {
  return since.active > BUSY_MS && since.utilization > 0.5 ? BUSY_SLICE_MS : SLICE_MS;
}

/** What a slice reads: a clock, and how busy the loop was since the last slice. */
export interface LoopSignal {
  /** Milliseconds, monotonic (`performance.now()`). */
  now(): number;
  /** What the loop did since the last {@link LoopSignal.mark} (`eventLoopUtilization` over that span). */
  sinceMark(): { active: number; utilization: number };
  /** A slice ends here. */
  mark(): void;
}

/** The process's own loop: the clock and the event-loop utilisation Node measures. */
function processLoop(): LoopSignal {
  let last = perfHooks.eventLoopUtilization();
  return {
    now: () => performance.now(),
    sinceMark: () => perfHooks.eventLoopUtilization(last),
    mark: () => {
      last = perfHooks.eventLoopUtilization();
    },
  };
}

/**
 * The queue the sessions' events wait in, drained in slices after the loop's reads. One per
 * process in production; a test gives its own a simulated {@link LoopSignal}, so that what it
 * checks never depends on how busy the machine running it is.
 */
export class DeferredQueue {
  private readonly queue: Array<{ flush(): void }> = [];
  private head = 0;
  private scheduled = false;

  constructor(private readonly loop: LoopSignal = processLoop()) {}

  add(session: { flush(): void }): void {
    this.queue.push(session);
    this.schedule();
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    const until = this.loop.now() + sliceMs(this.loop.sinceMark());
    while (this.head < this.queue.length) {
      const s = this.queue[this.head++]!;
      s.flush();
      if (this.loop.now() >= until) break;
    }
    if (this.head < this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
      this.schedule();
    } else {
      this.queue.length = 0;
      this.head = 0;
    }
    this.loop.mark();
  };

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.drain);
  }
}

const processQueue = new DeferredQueue();

export class SessionEvents<E> {
  private pending: E[] = [];
  /** How many pending events must reach the chart before the session's next audio. */
  private beforeAudioCount = 0;
  private closed = false;
  private delivering = false;

  /**
   * @param mayFollowAudio events the session's later audio may overtake (default: none).
   * @param merge one event that says what `last` then `next` say, when they can be one (both
   *   still pending): one chart macrostep, one page frame, instead of two.
   * @param queue where the events wait for their slice (default: the process's).
   */
  constructor(
    private readonly deliver: (event: E) => void,
    private readonly mayFollowAudio: (event: E) => boolean = () => false,
    private readonly merge: (last: E, next: E) => E | undefined = () => undefined,
    private readonly queue: DeferredQueue = processQueue,
  ) {}

  push(event: E): void {
    if (this.closed) return;
    if (!tuningOn('chart-events-after-audio')) {
      this.pending.push(event);
      if (!this.delivering) this.flush();
      return;
    }
    const n = this.pending.length;
    if (n === 0) {
      this.queue.add(this);
    } else {
      const last = this.pending[n - 1]!;
      const merged = this.merge(last, event);
      if (merged !== undefined) {
        this.pending[n - 1] = merged;
        if (this.mayFollowAudio(last) && !this.mayFollowAudio(merged)) this.beforeAudioCount++;
        return;
      }
    }
    this.pending.push(event);
    if (!this.mayFollowAudio(event)) this.beforeAudioCount++;
  }

  /** The session's audio is about to leave: delivers the pending events if one must precede it. */
  beforeAudio(): void {
    if (this.beforeAudioCount > 0) this.flush();
  }

  /** Delivers what is pending now, in order (events a delivery pushes are delivered too). */
  flush(): void {
    this.delivering = true;
    try {
      while (this.pending.length > 0 && !this.closed) {
        const events = this.pending;
        this.pending = [];
        this.beforeAudioCount = 0;
        for (const e of events) {
          if (this.closed) return;
          this.deliver(e);
        }
      }
    } finally {
      this.delivering = false;
    }
  }

  /** The session's actor stopped: nothing more is delivered to it. */
  close(): void {
    this.closed = true;
    this.pending = [];
    this.beforeAudioCount = 0;
  }
}
