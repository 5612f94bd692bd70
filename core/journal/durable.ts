/**
 * The journal's durability policy, in one place: a step whose effect reaches the outside world (an
 * MQTT publish, a WebSocket frame, an HTTP answer, a PUBACK) is written before that effect leaves
 * the process. Steps are otherwise written in batches (core/journal/recorder.ts); an edge that is
 * about to let bytes go calls `beforeEffectLeaves()` first, and every recorder of the process then
 * writes what it holds, including the step being processed right now (an effect runs in the
 * middle of its step: that step is written as `partial`, with the actions done so far, and
 * rewritten whole when it ends).
 *
 * SQLite: one transaction, synchronous, done when this returns (undefined). In WAL mode with
 * `synchronous=NORMAL` the commit is a write() to the WAL file: it survives the process being
 * killed (the OS holds it), not a power loss (no fsync per commit). Postgres: the write is a round
 * trip; the returned promise resolves once it is committed and the edge awaits it before sending.
 *
 * Nothing pending (no step since the last write, no step open) costs one check per recorder.
 */
export interface DurableJournal {
  /** Writes every step taken so far; undefined once written, or a promise when the store is remote. */
  persistNow(): Promise<void> | undefined;
}

const journals = new Set<DurableJournal>();

export function registerDurable(journal: DurableJournal): () => void {
  journals.add(journal);
  return () => journals.delete(journal);
}

/** Call right before an effect leaves the process; await the promise when one is returned. */
export function beforeEffectLeaves(): Promise<void> | undefined {
  if (journals.size === 0) return undefined;
  let waits: Array<Promise<void>> | undefined;
  for (const j of journals) {
    const p = j.persistNow();
    if (p) (waits ??= []).push(p);
  }
  if (!waits) return undefined;
  return waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined);
}
