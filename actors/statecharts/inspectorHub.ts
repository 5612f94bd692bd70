import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { Runtime } from '../../core/runtime.js';
import { actorLabel } from './actorLabel.js';
import { redactForInspection } from './redact.js';
import type { ConversationView, InspectRecord } from '../../transports/ws/inspectSocket.js';

/**
 * Turns the runtime's raw inspection stream into records safe to show on /inspect: each record
 * names the conversation it belongs to (its systemId), the machine kind, and carries only
 * redacted data (no keys, JWTs or audio). While at least one listener is attached it keeps a short
 * history per conversation, so a page that selects an actor later still sees its recent events,
 * and it keeps ended conversations (final state, event log) for `retainMs` (INSPECT_RETAIN_S):
 * a docs chat lives for a second, and must still be there to look at.
 */

interface Tracked extends ConversationView {
  records: InspectRecord[];
}

type Listener = (record: InspectRecord) => void;

const HISTORY = 200;
/** Default retention of ended conversations (INSPECT_RETAIN_S = 300). */
const DEFAULT_RETAIN_MS = 300_000;

interface Owner {
  systemId: string;
  kind: string;
  ref: AnyActorRef;
  startedAt: number;
}

interface WithParent {
  _parent?: AnyActorRef & WithParent;
  id?: string;
}

export class InspectorHub {
  private seq = 0;
  private readonly listeners = new Set<Listener>();
  /** Conversations seen while listening, live or ended (kept `retainMs` after their end). */
  private readonly tracked = new Map<string, Tracked>();
  private unsubscribeRuntime: (() => void) | undefined;
  /** Actor → its conversation, so each inspection event costs a lookup, not a scan of them all. */
  private owners = new WeakMap<AnyActorRef, Owner | null>();

  constructor(
    private readonly runtime: Runtime,
    private readonly now: () => number = Date.now,
    private readonly retainMs: number = DEFAULT_RETAIN_MS,
  ) {}

  /** The conversation an actor belongs to: itself or its nearest ancestor that the root spawned. */
  private conversationOf(ref: AnyActorRef): Owner | undefined {
    const cached = this.owners.get(ref);
    if (cached !== undefined) return cached ?? undefined;
    const byRef = new Map(this.runtime.list().map((e) => [e.ref, e] as const));
    let current: (AnyActorRef & WithParent) | undefined = ref as AnyActorRef & WithParent;
    let owner: Owner | undefined;
    for (let depth = 0; current && depth < 20 && !owner; depth++) {
      const match = byRef.get(current);
      if (match) owner = { systemId: match.systemId, kind: match.kind, ref: match.ref, startedAt: match.startedAt };
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
    const t = this.track(owner);
    t.records.push(record);
    if (t.records.length > HISTORY) t.records.splice(0, t.records.length - HISTORY);
    if (record.type === 'snapshot' && e.actorRef === owner.ref) {
      t.value = record.value;
      t.status = record.status ?? 'active';
      t.context = record.context; // the label is derived from it when the list is asked for
      // done / error / stopped: the conversation is over; it stays listed, greyed, for retainMs.
      if (t.status !== 'active' && t.endedAt === null) t.endedAt = record.at;
    }
    for (const l of this.listeners) {
      try {
        l(record);
      } catch {
        // one broken page must not stop the others
      }
    }
  }

  private track(owner: { systemId: string; kind: string; startedAt: number }): Tracked {
    let t = this.tracked.get(owner.systemId);
    if (!t) {
      t = { systemId: owner.systemId, kind: owner.kind, label: actorLabel(owner.kind, owner.systemId, undefined), startedAt: owner.startedAt, endedAt: null, value: null, status: 'active', context: undefined, records: [] };
      this.tracked.set(owner.systemId, t);
    }
    return t;
  }

  /**
   * Live conversations with their current state, then (while a page listens) the ended ones kept
   * for `retainMs`, each with its final state. All redacted.
   */
  conversations(): ConversationView[] {
    const now = this.now();
    const listening = this.listeners.size > 0;
    const live = new Set<string>();
    const views: ConversationView[] = this.runtime.list().map((e) => {
      live.add(e.systemId);
      const snap = e.ref.getSnapshot() as { value?: unknown; status?: string; context?: unknown };
      const context = redactForInspection(snap.context);
      const view = {
        systemId: e.systemId,
        kind: e.kind,
        label: actorLabel(e.kind, e.systemId, context),
        startedAt: e.startedAt,
        endedAt: null,
        value: redactForInspection(snap.value),
        status: snap.status ?? 'active',
        context,
      };
      if (listening) Object.assign(this.track(e), { label: view.label, value: view.value, status: view.status, context: view.context });
      return view;
    });
    const ended: ConversationView[] = [];
    for (const [id, t] of this.tracked) {
      if (live.has(id)) continue;
      t.endedAt ??= now; // stopped by its transport: gone from the runtime without a final snapshot
      if (now - t.endedAt > this.retainMs) {
        this.tracked.delete(id);
        continue;
      }
      const { records: _records, ...view } = t;
      ended.push({ ...view, label: actorLabel(t.kind, t.systemId, t.context) });
    }
    ended.sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0));
    return [...views, ...ended];
  }

  recent(systemId: string): InspectRecord[] {
    return [...(this.tracked.get(systemId)?.records ?? [])];
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
    // Nobody looks: nothing is kept (no inspection cost, no retained conversation).
    this.tracked.clear();
    this.owners = new WeakMap();
  }

  close(): void {
    this.listeners.clear();
    this.release();
  }
}
