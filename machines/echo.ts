import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';

/**
 * The echo conversation: the smallest surface (docs/architecture.md § Adding a surface). A client
 * sends a line, the conversation counts it in the store and sends it back with the running total.
 * Its side effects (the count, the reply) are provided at wiring time (actors/echo/echoWiring.ts).
 */

export type EchoEvent = { type: 'echo.say'; text: string } | { type: 'echo.close' };

export interface EchoContext {
  /** Echoes sent back in this conversation. */
  echoes: number;
  /** The line being counted, until it is sent back. */
  pending: string | null;
}

/** What the conversation sends to its client. */
export type EchoReply = { type: 'echo'; text: string; total: number } | { type: 'error'; code: 'busy' | 'store_failed'; message: string };

export const echoMachine = setup({
  types: { context: {} as EchoContext, events: {} as EchoEvent },
  actors: {
    /** Adds one to the stored count of echoes; resolves with the new total. */
    countEcho: fromPromise<number>(() => Promise.reject(new Error('countEcho is provided at wiring time'))),
  },
  actions: {
    reply: (_, _reply: EchoReply) => {},
  },
}).createMachine({
  id: 'echo',
  description: 'One echo conversation over a WebSocket: each line the client sends is counted in the store and sent back with the total.',
  context: { echoes: 0, pending: null },
  initial: 'listening',
  on: { 'echo.close': '.closed' },
  states: {
    listening: {
      description: 'Waits for a line from the client.',
      on: { 'echo.say': { target: 'counting', actions: assign({ pending: ({ event }) => event.text }) } },
    },
    counting: {
      description: 'Counts the line in the store, then sends it back with the total; a line that arrives meanwhile is refused (busy).',
      invoke: {
        id: 'countEcho',
        src: 'countEcho',
        onDone: {
          target: 'listening',
          actions: [
            { type: 'reply', params: ({ context, event }) => ({ type: 'echo', text: context.pending ?? '', total: event.output }) },
            assign({ echoes: ({ context }) => context.echoes + 1, pending: null }),
          ],
        },
        onError: {
          target: 'listening',
          actions: [
            { type: 'reply', params: { type: 'error', code: 'store_failed', message: 'The echo could not be counted: try again.' } },
            assign({ pending: null }),
          ],
        },
      },
      on: { 'echo.say': { actions: { type: 'reply', params: { type: 'error', code: 'busy', message: 'Wait for the previous echo before sending another line.' } } } },
    },
    closed: {
      description: 'The client left or the process drains: no more echoes.',
      type: 'final',
    },
  },
});

type EchoSnapshot = SnapshotFrom<typeof echoMachine>;

/** Echoes sent back so far: what the edge's health reads, never the context itself. */
export const selectEchoes = (s: EchoSnapshot): number => s.context.echoes;
