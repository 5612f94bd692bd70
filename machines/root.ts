import { assign, enqueueActions, setup, stopChild, type AnyActorLogic, type AnyActorRef } from 'xstate';

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
  | { type: 'conversation.stop'; systemId: string }
  /**
   * A conversation says whose it is (e.g. `t2:<sub>` once its token is verified). One live
   * conversation per owner: an older one with the same owner is told `conversation.replaced`.
   */
  | { type: 'conversation.claim'; owner: string; ref: AnyActorRef };

/** The systemId of a child conversation, by its actor. */
function systemIdOf(conversations: Record<string, ConversationEntry>, ref: AnyActorRef): string | undefined {
  return Object.entries(conversations).find(([, e]) => e.ref === ref)?.[0];
}

export const rootMachine = setup({
  types: {
    context: {} as { conversations: Record<string, ConversationEntry>; owners: Record<string, string> },
    events: {} as RootEvent,
  },
  guards: {
    isNew: ({ context, event }) => event.type === 'conversation.start' && !(event.systemId in context.conversations),
    isKnown: ({ context, event }) => event.type === 'conversation.stop' && event.systemId in context.conversations,
  },
}).createMachine({
  id: 'root',
  context: { conversations: {}, owners: {} },
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
          owners: ({ context, event }) => Object.fromEntries(Object.entries(context.owners).filter(([, id]) => id !== event.systemId)),
        }),
      ],
    },
    'conversation.claim': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const systemId = systemIdOf(context.conversations, event.ref);
        if (!systemId) return;
        const previous = context.owners[event.owner];
        const older = previous !== undefined && previous !== systemId ? context.conversations[previous] : undefined;
        if (older) enqueue.sendTo(older.ref, { type: 'conversation.replaced' });
        enqueue.assign({ owners: { ...context.owners, [event.owner]: systemId } });
      }),
    },
  },
});
