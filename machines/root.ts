import { assign, setup, stopChild, type AnyActorLogic, type AnyActorRef } from 'xstate';

/**
 * The process's root actor. Every conversation (a T2 session, a Skull device, a chat, a
 * correction) is spawned here as a child with a `systemId` a transport can address, so one
 * actor system — and one `inspect` stream — sees them all.
 */
export interface ConversationEntry {
  ref: AnyActorRef;
  /** Machine name (`skull`, `t2live`, `chat`, `correction`…), for metrics and the inspector. */
  kind: string;
  startedAt: number;
}

export type RootEvent =
  | { type: 'conversation.start'; systemId: string; kind: string; logic: AnyActorLogic; input?: unknown; at: number }
  | { type: 'conversation.stop'; systemId: string };

export const rootMachine = setup({
  types: {
    context: {} as { conversations: Record<string, ConversationEntry> },
    events: {} as RootEvent,
  },
  guards: {
    isNew: ({ context, event }) => event.type === 'conversation.start' && !(event.systemId in context.conversations),
    isKnown: ({ context, event }) => event.type === 'conversation.stop' && event.systemId in context.conversations,
  },
}).createMachine({
  id: 'root',
  context: { conversations: {} },
  on: {
    'conversation.start': {
      guard: 'isNew',
      actions: assign({
        conversations: ({ context, event, spawn }) => ({
          ...context.conversations,
          [event.systemId]: {
            ref: spawn(event.logic, { systemId: event.systemId, input: event.input }) as AnyActorRef,
            kind: event.kind,
            startedAt: event.at,
          },
        }),
      }),
    },
    'conversation.stop': {
      guard: 'isKnown',
      actions: [
        stopChild(({ context, event }) => context.conversations[event.systemId]!.ref),
        assign({
          conversations: ({ context, event }) => {
            const rest = { ...context.conversations };
            delete rest[event.systemId];
            return rest;
          },
        }),
      ],
    },
  },
});
