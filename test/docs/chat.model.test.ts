import { describe, expect, it } from 'vitest';
import { chatMachine } from '../../machines/chat.js';
import { runModel } from '../harness/index.js';
import { expectChat, project, samples, variants } from './chatModelSpec.js';

/** Model-based test of the `chat` chart: every generated path replayed on a real actor. */
describe('chat model', () => {
  it('replays every generated path and covers every state and transition', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 'chat',
      machine: chatMachine,
      variants,
      events: samples,
      oracle: expectChat,
      project,
    });
    expect(failures).toEqual([]);
    expect(paths.length).toBeGreaterThan(5);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(paths.length * 2);
  }, 120_000); // hundreds of paths: seconds on an idle machine, far more when the machine is shared
});
