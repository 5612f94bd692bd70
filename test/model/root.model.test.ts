import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, type AnyActorRef, type AnyMachineSnapshot, type EventObject } from 'xstate';
import { AWAITING_CLIENT_TAG, RESUMABLE_TAG, rootMachine, type ConversationEntry } from '../../core/rootMachine.js';
import { runModel, type OracleContext } from '../harness/index.js';

/**
 * Conversations of three kinds, by the tags the root reads: one that is simply live, one that
 * waits for its client (`awaitingClient`), one whose client may be gone (`resumable`).
 */
type Kind = 'live' | 'awaiting' | 'resumable';
const KINDS: Record<string, Kind> = { a: 'live', b: 'awaiting', c: 'resumable' };
const TAGS: Record<Kind, string[]> = { live: [], awaiting: [AWAITING_CLIENT_TAG], resumable: [RESUMABLE_TAG] };

/** What one spawned conversation went through, as it saw it. */
interface ChildLog {
  systemId: string;
  kind: Kind;
  started: boolean;
  stopped: boolean;
  received: EventObject[];
}

interface RootWorld {
  /** One entry per `conversation.start` sent, in order (refused ones never start). */
  children: ChildLog[];
  /** The root's actor system: where a transport addresses a conversation by systemId. */
  system: () => AnyActorRef['system'];
}

/**
 * The traversal's stand-in: only its tags matter there. It is done from the start, so XState
 * frees its systemId at once (the traversal shares one actor system and never stops children:
 * a live stand-in would make the next spawn of that systemId, on another branch, throw).
 */
function traversalConversation(kind: Kind) {
  return createMachine({ initial: 'on', states: { on: { type: 'final', tags: TAGS[kind] } } });
}

/** A replayed conversation: it records what it receives and when it is stopped. */
function conversation(kind: Kind, log: ChildLog) {
  return createMachine({
    invoke: {
      src: fromCallback(() => {
        log.started = true;
        return () => {
          log.stopped = true;
        };
      }),
    },
    initial: 'on',
    states: { on: { tags: TAGS[kind], on: { '*': { actions: ({ event }) => log.received.push(event) } } } },
  });
}

type Context = { conversations: Record<string, ConversationEntry>; owners: Record<string, string> };
const ctx = (s: AnyMachineSnapshot) => s.context as Context;

/**
 * The root as docs/t2-live.md ("A dropped connection") and core/runtime.ts describe it, from the
 * path's events alone: a start spawns a conversation under a free systemId (a taken one is
 * refused, the live one untouched); a stop stops a live one and frees its systemId and its
 * ownership; a claim by a live conversation makes it its owner's one conversation — the older
 * one is told `conversation.replaced` — unless the older one awaits its client (or, for a
 * resume-only claim, is resumable): then the claimer is told `conversation.resume` with the older
 * one's systemId; a resume-only claim with nothing to resume is told `conversation.nothingToResume`;
 * a plain claim while the older one is in use (resumable) is told `conversation.activeElsewhere`
 * and replaces nobody — only a `takeover` claim replaces it.
 */
function expectedRoot(events: EventObject[]) {
  const live = new Map<string, { kind: string; at: number; child: number }>();
  const owners = new Map<string, string>();
  const children: Array<{ systemId: string; stopped: boolean; received: Array<EventObject & Record<string, unknown>> }> = [];
  for (const e of events as Array<EventObject & Record<string, unknown>>) {
    if (e.type === 'conversation.start') {
      const systemId = e.systemId as string;
      if (live.has(systemId)) continue;
      live.set(systemId, { kind: e.kind as string, at: e.at as number, child: children.length });
      children.push({ systemId, stopped: false, received: [] });
    } else if (e.type === 'conversation.stop') {
      const entry = live.get(e.systemId as string);
      if (!entry) continue;
      children[entry.child]!.stopped = true;
      live.delete(e.systemId as string);
      for (const [owner, id] of owners) if (id === e.systemId) owners.delete(owner);
    } else if (e.type === 'conversation.claim') {
      const by = e.by as string;
      const claimer = live.get(by);
      if (!claimer) continue;
      const tell = (entry: { child: number }, event: EventObject & Record<string, unknown>) => children[entry.child]!.received.push(event);
      const previous = owners.get(e.owner as string);
      const older = previous !== undefined && previous !== by ? live.get(previous) : undefined;
      const olderKind = older ? KINDS[previous!] : undefined;
      if (older && (olderKind === 'awaiting' || (e.resumeOnly === true && olderKind === 'resumable'))) tell(claimer, { type: 'conversation.resume', systemId: previous! });
      else if (e.resumeOnly === true) tell(claimer, { type: 'conversation.nothingToResume' });
      // Still in use elsewhere (another tab): the claimer is asked to confirm, nothing replaced.
      else if (older && olderKind === 'resumable' && e.takeover !== true) tell(claimer, { type: 'conversation.activeElsewhere' });
      else {
        if (older) tell(older, { type: 'conversation.replaced' });
        owners.set(e.owner as string, by);
      }
    }
  }
  return { live, children };
}

/** What a transport and the runtime's list (/healthz, /metrics, /inspect) see, and what each conversation saw. */
function expectRoot({ events, world, snapshot, check }: OracleContext): void {
  const { children, system } = world as RootWorld;
  const expected = expectedRoot(events);
  const reported = ctx(snapshot).conversations;
  const listed = Object.entries(reported).map(([id, e]) => `${id}:${e.kind}@${e.startedAt}`).sort();
  const want = [...expected.live].map(([id, e]) => `${id}:${e.kind}@${e.at}`).sort();
  check(JSON.stringify(listed) === JSON.stringify(want), `the root lists ${want.join(', ') || 'nothing'}, lists ${listed.join(', ') || 'nothing'}`);
  for (const id of Object.keys(KINDS)) {
    const ref = system().get(id);
    const entry = expected.live.get(id);
    check((ref !== undefined) === (entry !== undefined), `${id} is ${entry ? '' : 'not '}addressable by its systemId`);
    if (ref && entry) check(reported[id]?.ref === ref, `${id}'s listed actor is the one addressed by its systemId`);
  }
  const spawned = children.filter((c) => c.started);
  check(spawned.length === expected.children.length, `${expected.children.length} conversation(s) spawned, got ${spawned.length}`);
  expected.children.forEach((want, i) => {
    const got = spawned[i];
    if (!got) return;
    check(got.systemId === want.systemId, `conversation ${i + 1} spawned as ${want.systemId}, got ${got.systemId}`);
    check(got.stopped === want.stopped, `${want.systemId} (#${i + 1}) is ${want.stopped ? 'stopped' : 'running'}`);
    check(JSON.stringify(got.received) === JSON.stringify(want.received), `${want.systemId} (#${i + 1}) was told ${JSON.stringify(want.received)}, got ${JSON.stringify(got.received)}`);
  });
}

describe('root model', () => {
  it('starts, stops and arbitrates conversations along every generated path, checked by an oracle', async () => {
    const { failures, coverage } = await runModel({
      name: 'root',
      machine: rootMachine,
      variants: [{ name: 'three systemIds, one owner', input: () => undefined }],
      events: {
        // Each systemId is tried twice over (refused by isNew the second time while live).
        'conversation.start': Object.entries(KINDS).map(([systemId, kind]) => ({ systemId, kind, logic: traversalConversation(kind), at: 7 })),
        'conversation.stop': [...Object.keys(KINDS).map((systemId) => ({ systemId })), { systemId: 'unknown' }],
        // A claim comes from a live conversation (its ref); `by` names it for the replay.
        'conversation.claim': (s) =>
          Object.entries(ctx(s).conversations).flatMap(([by, e]) => [
            { owner: 'u', ref: e.ref, by },
            { owner: 'u', ref: e.ref, by, resumeOnly: true },
            { owner: 'u', ref: e.ref, by, takeover: true },
          ]),
      },
      serializeState: (s) => JSON.stringify({ live: Object.keys(ctx(s).conversations).sort(), owners: ctx(s).owners }),
      project: (s) => ({ live: Object.keys(ctx(s).conversations).sort(), owners: ctx(s).owners }),
      // Simple paths explode over 3 systemIds × owners; shortest and per-transition paths reach every state and edge.
      simplePaths: false,
      start: ({ machine, inspect, clock }) => {
        const actor = createActor(machine, { inspect, clock }).start();
        const world: RootWorld = { children: [], system: () => actor.system };
        return {
          actor,
          world,
          send: (event: EventObject) => {
            const e = event as EventObject & Record<string, unknown>;
            if (e.type === 'conversation.start') {
              // A fresh conversation per path, recording into this path's world.
              const log: ChildLog = { systemId: e.systemId as string, kind: KINDS[e.systemId as string]!, started: false, stopped: false, received: [] };
              world.children.push(log);
              actor.send({ ...e, logic: conversation(log.kind, log) } as never);
            } else if (e.type === 'conversation.claim') {
              // The model's ref is the traversal's actor: claim with the replayed one.
              const ref = (actor.getSnapshot().context as Context).conversations[e.by as string]?.ref;
              if (ref) actor.send({ ...e, ref } as never);
            } else actor.send(event as never);
          },
        };
      },
      oracle: expectRoot,
      scenarios: [
        {
          // The owner of a stopped conversation is free again: a later claim replaces nobody.
          name: 'stop frees the ownership',
          events: [
            { type: 'conversation.start', systemId: 'a', kind: 'live', logic: traversalConversation('live'), at: 7 },
            { type: 'conversation.claim', owner: 'u', by: 'a' },
            { type: 'conversation.stop', systemId: 'a' },
            { type: 'conversation.start', systemId: 'a', kind: 'live', logic: traversalConversation('live'), at: 7 },
            { type: 'conversation.start', systemId: 'c', kind: 'resumable', logic: traversalConversation('resumable'), at: 7 },
            { type: 'conversation.claim', owner: 'u', by: 'c' },
            { type: 'conversation.claim', owner: 'u', by: 'a' },
          ],
        },
      ],
    });
    expect(failures).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(0);
  });
});
