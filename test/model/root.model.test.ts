import { describe, expect, it } from 'vitest';
import { fromCallback } from 'xstate';
import { rootMachine } from '../../machines/root.js';
import { runModel } from '../harness/index.js';

/** A conversation that lives until it is stopped. */
const conversation = fromCallback(() => () => {});

describe('root model', () => {
  it('starts and stops conversations by systemId along every generated path', async () => {
    const { failures, coverage } = await runModel({
      name: 'root',
      machine: rootMachine,
      variants: [{ name: 'one systemId', input: () => undefined }],
      events: {
        // One systemId, so that starting it twice is tried (and refused by isNew).
        'conversation.start': [{ systemId: 'dev-1', kind: 'echo', logic: conversation, at: 0 }],
        'conversation.stop': [{ systemId: 'dev-1' }, { systemId: 'unknown' }],
      },
      project: (s) => Object.keys((s.context as { conversations: Record<string, unknown> }).conversations),
    });
    expect(failures).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
  });
});
