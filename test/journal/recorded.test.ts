import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalFileSchema } from '../../core/journal/step.js';
import { replayJournal } from '../../core/journal/replay.js';
import { divergenceText } from '../../cli/journalText.js';
import { replayTargets } from '../../cli/replayTargets.js';

/**
 * Every recorded conversation kept as a fixture (`palabre replay ID --save-test`, or
 * scripts/record-journal-fixtures.ts) replays the same against today's charts and prompts. When a
 * change is intended, re-record the fixture; otherwise the change broke what the conversation did.
 */
const DIR = join(import.meta.dirname, '..', 'recorded');
const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const targets = replayTargets({ SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt' });

describe('recorded conversations (test/recorded/)', () => {
  it('holds a fixture of each surface recorded from a real run', () => {
    const machines = files.map((f) => journalFileSchema.parse(JSON.parse(readFileSync(join(DIR, f), 'utf8'))).machine);
    expect(machines).toEqual(expect.arrayContaining(['skull', 'chat', 't2live', 'correction']));
  });

  it.each(files)('%s replays the same', async (file) => {
    const journal = journalFileSchema.parse(JSON.parse(readFileSync(join(DIR, file), 'utf8')));
    const target = await targets(journal.machine);
    expect(target, `machine ${journal.machine}`).toBeDefined();
    const result = replayJournal(journal, target!);
    const why = result.divergence ? `${divergenceText(journal.id, journal.steps.length, result.divergence)}\nIf the change is intended: npx tsx scripts/record-journal-fixtures.ts` : '';
    expect(result.same, why).toBe(true);
    expect(result.steps).toBe(journal.steps.length);
  });
});
