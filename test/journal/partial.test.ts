import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalFileSchema, type Journal } from '../../core/journal/step.js';
import { replayJournal } from '../../core/journal/replay.js';
import { replayTargets } from '../../cli/replayTargets.js';

/**
 * A process killed in the middle of a step leaves that step as it was written when its effect
 * left (`status: partial`: the event and the actions done until then, no state). Replay compares
 * it with the beginning of today's step and stops there: the same when those actions match, a
 * divergence when they do not.
 */
const DIR = join(import.meta.dirname, '..', 'recorded');
const skull = journalFileSchema.parse(JSON.parse(readFileSync(join(DIR, readdirSync(DIR).find((f) => f.startsWith('skull-') && f.endsWith('.json'))!), 'utf8')));
const targets = replayTargets({ SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt' });

/** The Skull journal cut while step 2 (generate.done) was publishing its reply. */
function cutAtPublish(edit: (j: Journal) => void = () => {}): Journal {
  const j = structuredClone(skull);
  const step = j.steps[2]!;
  expect(step.event.type).toBe('generate.done');
  const upTo = step.actions.findIndex((a) => a.type === 'publishReply');
  j.steps = j.steps.slice(0, 3);
  j.steps[2] = { ...step, actions: step.actions.slice(0, upTo + 1), state: null, status: 'partial' };
  j.endedAt = null;
  edit(j);
  return j;
}

describe('replay of a journal whose last step was cut by the end of the process', () => {
  it('is the same up to the last recorded action, and says so', async () => {
    const result = replayJournal(cutAtPublish(), (await targets('skull'))!);
    expect(result).toMatchObject({ same: true, partial: true, steps: 3 });
  });

  it('diverges when the recorded actions differ from today’s', async () => {
    const result = replayJournal(cutAtPublish((j) => {
      const publish = j.steps[2]!.actions.at(-1)!;
      (publish.params as { outgoing: { response: { text: string } } }).outgoing.response.text = 'autre réponse';
    }), (await targets('skull'))!);
    expect(result.same).toBe(false);
    expect(result.divergence).toMatchObject({ step: 2, field: 'actions' });
  });
});
