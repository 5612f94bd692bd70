import { describe, expect, it } from 'vitest';
import { createActor, type EventObject } from 'xstate';
import { wireEcho } from '../../actors/echo/echoWiring.js';
import type { EchoStore } from '../../actors/echo/echoStore.js';
import type { EchoReply } from '../../machines/echo.js';
import { runModel, type OracleContext } from '../harness/index.js';

/** The count is an invoked actor the harness controls: the wiring's store is never reached. */
const unusedStore = { count: () => Promise.reject(new Error('the harness controls countEcho')) } as unknown as EchoStore;

/** What the client of the path received, in order (the wiring's `reply`, as in production). */
let replies: EchoReply[] = [];

/**
 * What the client must see, from the events alone: each counted line comes back once, with the
 * total the store returned; a failed count says so; a line sent while one is being counted is
 * refused `busy`; after `echo.close` nothing more.
 */
function expectEcho({ events, check }: OracleContext): void {
  const want: EchoReply[] = [];
  let counting: string | null = null;
  let closed = false;
  for (const e of events as Array<EventObject & { text?: string; output?: number }>) {
    if (closed) break;
    if (e.type === 'echo.close') closed = true;
    else if (e.type === 'echo.say') {
      if (counting === null) counting = e.text ?? '';
      else want.push({ type: 'error', code: 'busy', message: 'Wait for the previous echo before sending another line.' });
    } else if (e.type === 'xstate.done.actor.countEcho' && counting !== null) {
      want.push({ type: 'echo', text: counting, total: e.output ?? -1 });
      counting = null;
    } else if (e.type === 'xstate.error.actor.countEcho' && counting !== null) {
      want.push({ type: 'error', code: 'store_failed', message: 'The echo could not be counted: try again.' });
      counting = null;
    }
  }
  check(JSON.stringify(replies) === JSON.stringify(want), `the client gets ${JSON.stringify(want)}, got ${JSON.stringify(replies)}`);
}

describe('echo model', () => {
  it('replays every generated path against the wired chart and covers every state and transition', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 'echo',
      machine: wireEcho(unusedStore, (r) => replies.push(r)),
      variants: [{ name: 'one client', input: () => undefined as never }],
      events: {
        'echo.say': [{ text: 'bonjour' }, { text: 'encore' }],
        'xstate.done.actor.countEcho': [{ output: 1 }, { output: 7 }],
        'xstate.error.actor.countEcho': [{ error: new Error('store unreachable') }],
      },
      // The echo count grows without bound; the behaviour depends on the state and the line pending.
      serializeState: (s) => JSON.stringify({ value: s.value, pending: (s.context as { pending: string | null }).pending }),
      start: ({ machine, clock, inspect }) => {
        replies = [];
        return { actor: createActor(machine, { clock, inspect }).start() };
      },
      oracle: expectEcho,
      write: false,
    });
    expect(failures).toEqual([]);
    expect(paths.length).toBeGreaterThan(3);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
  });
});
