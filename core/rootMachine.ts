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
   * conversation per owner: an older one with the same owner is told `conversation.replaced`,
   * unless it awaits its client (`AWAITING_CLIENT_TAG`): then the claimer resumes it. An older
   * one still in use (`RESUMABLE_TAG`) is replaced only by a `takeover` claim: a plain claim is
   * told `conversation.activeElsewhere`, so the candidate is asked before the other tab's session
   * ends.
   */
  | {
      type: 'conversation.claim';
      owner: string;
      ref: AnyActorRef;
      /** Only resume an older conversation of this owner; never replace one (a reconnecting page). */
      resumeOnly?: boolean;
      /** The owner confirmed ending their conversation in use elsewhere. */
      takeover?: boolean;
    };

/**
 * A conversation in a state tagged so waits for its client to come back: a claim by the same
 * owner then resumes it (the claimer is told `conversation.resume`) instead of replacing it.
 */
export const AWAITING_CLIENT_TAG = 'awaitingClient';
/**
 * A conversation in a state tagged so may be taken over by a resume-only claim of its owner: its
 * client may be gone without its socket having said so yet (a network drop).
 */
export const RESUMABLE_TAG = 'resumable';

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
  description: 'Holds every running conversation: starts and stops them, and settles who owns which when a client claims one.',
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
        // Reading a child's tags keeps this chart pure: the snapshot is the child's published state.
        const tagged = (tag: string): boolean => older !== undefined && (older.ref.getSnapshot() as { hasTag?: (t: string) => boolean }).hasTag?.(tag) === true;
        if (older && (tagged(AWAITING_CLIENT_TAG) || (event.resumeOnly && tagged(RESUMABLE_TAG)))) {
          enqueue.sendTo(event.ref, { type: 'conversation.resume', systemId: previous! });
          return;
        }
        if (event.resumeOnly) {
          enqueue.sendTo(event.ref, { type: 'conversation.nothingToResume' });
          return;
        }
        if (older && tagged(RESUMABLE_TAG) && !event.takeover) {
          enqueue.sendTo(event.ref, { type: 'conversation.activeElsewhere' });
          return;
        }
        if (older) enqueue.sendTo(older.ref, { type: 'conversation.replaced' });
        enqueue.assign({ owners: { ...context.owners, [event.owner]: systemId } });
      }),
    },
  },
});
