import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { journalFileSchema, type Journal } from '../../core/journal/step.js';
import { JournalStore } from '../../core/journal/store.js';
import type { Store } from '../../core/store/sqlStore.js';

const DIR = join(import.meta.dirname, '..', 'recorded');

/** The conversations recorded from real runs of each surface (test/recorded/), as the store holds them. */
export function recordedFixtures(): Journal[] {
  return readdirSync(DIR).filter((f) => f.endsWith('.json')).sort().map((f) => journalFileSchema.parse(JSON.parse(readFileSync(join(DIR, f), 'utf8'))));
}

/** Writes journals into a store through the journal's own writer, as the recorder does. */
export async function storeJournals(store: Store, journals: Journal[]): Promise<JournalStore> {
  const js = new JournalStore(store);
  for (const j of journals) {
    const lastAt = j.endedAt ?? new Date(j.startMs + (j.steps.at(-1)?.at ?? 0)).toISOString();
    await js.write({
      conversations: [{ id: j.id, systemId: j.systemId, surface: j.surface, machine: j.machine, startedAt: j.startedAt, endedAt: j.endedAt, startMs: j.startMs, lastAt, steps: j.steps.length, input: j.input }],
      steps: j.steps.map((step) => ({ conversationId: j.id, step })),
    });
  }
  return js;
}
