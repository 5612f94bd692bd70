import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { Runtime } from '../../core/runtime.js';
import { redactForInspection } from './redact.js';

/**
 * Turns the runtime's raw inspection stream into records safe to show on /inspect: each record
 * names the conversation it belongs to (its systemId), the machine kind, and carries only
 * redacted data (no keys, JWTs or audio). While at least one listener is attached it keeps a short
 * history per conversation, so a page that selects an actor later still sees its recent events.
 */

export interface InspectRecord {
  seq: number;
  at: number;
  /** systemId of the conversation (the top actor under the root). */
  conversation: string;
  kind: string;
  /** Which actor inside the conversation (the conversation itself, or an invoked child). */
  actor: string;
  type: 'event' | 'snapshot' | 'actor';
  eventType?: string;
  event?: unknown;
  /** State value of a machine snapshot. */
  value?: unknown;
  status?: string;
  context?: unknown;
}

export interface ConversationView {
  systemId: string;
  kind: string;
  startedAt: number;
  value: unknown;
  status: string;
  context: unknown;
}

type Listener = (record: InspectRecord) => void;

const HISTORY = 200;

interface Owner {
  systemId: string;
  kind: string;
  ref: AnyActorRef;
}

interface WithParent {
  _parent?: AnyActorRef & WithParent;
  id?: string;
}

export class InspectorHub {
  private seq = 0;
  private readonly listeners = new Set<Listener>();
  private readonly history = new Map<string, InspectRecord[]>();
  private unsubscribeRuntime: (() => void) | undefined;
  /** Actor → its conversation, so each inspection event costs a lookup, not a scan of them all. */
  private owners = new WeakMap<AnyActorRef, Owner | null>();

  constructor(private readonly runtime: Runtime, private readonly now: () => number = Date.now) {}

  /** The conversation an actor belongs to: itself or its nearest ancestor that the root spawned. */
  private conversationOf(ref: AnyActorRef): Owner | undefined {
    const cached = this.owners.get(ref);
    if (cached !== undefined) return cached ?? undefined;
    const byRef = new Map(this.runtime.list().map((e) => [e.ref, e] as const));
    let current: (AnyActorRef & WithParent) | undefined = ref as AnyActorRef & WithParent;
    let owner: Owner | undefined;
    for (let depth = 0; current && depth < 20 && !owner; depth++) {
      const match = byRef.get(current);
      if (match) owner = { systemId: match.systemId, kind: match.kind, ref: match.ref };
      current = current._parent;
    }
    // A miss is not remembered (an actor is inspected before the root's context lists it), except
    // for the root itself, which is never a conversation.
    if (owner) this.owners.set(ref, owner);
    else if (ref === this.runtime.root) this.owners.set(ref, null);
    return owner;
  }

  private onInspect(e: InspectionEvent): void {
    const owner = this.conversationOf(e.actorRef as AnyActorRef);
    if (!owner) return; // the root itself, or an actor already stopped
    const base = {
      seq: ++this.seq,
      at: this.now(),
      conversation: owner.systemId,
      kind: owner.kind,
      // The conversation itself is named by its systemId; invoked children by their own id.
      actor: owner.ref === e.actorRef ? owner.systemId : ((e.actorRef as AnyActorRef & WithParent).id ?? (e.actorRef as AnyActorRef).sessionId),
    };
    let record: InspectRecord;
    if (e.type === '@xstate.event') {
      record = { ...base, type: 'event', eventType: e.event.type, event: redactForInspection(e.event) };
    } else if (e.type === '@xstate.snapshot') {
      const snap = e.snapshot as { value?: unknown; status?: string; context?: unknown };
      record = {
        ...base,
        type: 'snapshot',
        eventType: e.event.type,
        value: redactForInspection(snap.value),
        status: snap.status ?? 'active',
        context: redactForInspection(snap.context),
      };
    } else if (e.type === '@xstate.actor') {
      record = { ...base, type: 'actor' };
    } else {
      return;
    }
    const list = this.history.get(owner.systemId) ?? [];
    list.push(record);
    if (list.length > HISTORY) list.splice(0, list.length - HISTORY);
    this.history.set(owner.systemId, list);
    for (const l of this.listeners) {
      try {
        l(record);
      } catch {
        // one broken page must not stop the others
      }
    }
  }

  /** Live conversations with their current state, redacted. */
  conversations(): ConversationView[] {
    const live = new Set<string>();
    const views = this.runtime.list().map((e) => {
      live.add(e.systemId);
      const snap = e.ref.getSnapshot() as { value?: unknown; status?: string; context?: unknown };
      return {
        systemId: e.systemId,
        kind: e.kind,
        startedAt: e.startedAt,
        value: redactForInspection(snap.value),
        status: snap.status ?? 'active',
        context: redactForInspection(snap.context),
      };
    });
    // Forget the history of conversations that are gone.
    for (const id of this.history.keys()) if (!live.has(id)) this.history.delete(id);
    return views;
  }

  recent(systemId: string): InspectRecord[] {
    return [...(this.history.get(systemId) ?? [])];
  }

  /**
   * Records flow only while someone listens: the hub subscribes to the runtime's inspection
   * stream with its first listener and lets go after the last, so a process nobody inspects pays
   * nothing per event (and XState builds no inspection events at all).
   */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    this.unsubscribeRuntime ??= this.runtime.onInspect((e) => this.onInspect(e));
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.release();
    };
  }

  private release(): void {
    this.unsubscribeRuntime?.();
    this.unsubscribeRuntime = undefined;
    this.history.clear();
    this.owners = new WeakMap();
  }

  close(): void {
    this.listeners.clear();
    this.release();
  }
}
