import { describe, expect, it } from 'vitest';
import { loadMachine as loadFrom } from '../../core/machineRegistry.js';
import { allMachines } from '../../actors/serve.js';
import { chartTransitions, countTaken, transitionName } from '../../core/journal/transitions.js';
import { inventory } from '../harness/inventory.js';
import { recordedFixtures } from '../inspect/recordedFixtures.js';

const registry = await allMachines();
const machineNames = (): string[] => Object.keys(registry);
const loadMachine = (name: string) => loadFrom(registry, name);

describe('transitions taken by recorded conversations', () => {
  it.each(machineNames())('%s: names its transitions as the model tests do (so the two coverages join)', async (name) => {
    const machine = (await loadMachine(name))!;
    expect(chartTransitions(machine).map(transitionName)).toEqual(inventory(machine).transitions);
  });

  it('infers the Skull request → reply path from the recorded states and events', async () => {
    const skull = recordedFixtures().find((j) => j.machine === 'skull')!;
    const counts = countTaken((await loadMachine('skull'))!, [skull.steps, skull.steps]);
    expect(Object.fromEntries(counts)).toEqual({
      'skull.turn.idle —ai.request→ skull.turn.responding': { conversations: 2, times: 2 },
      'skull.turn.responding.attempting —generate.done [and]→ skull.turn.publishing': { conversations: 2, times: 2 },
      'skull.turn.publishing —publish.done [isThisPublish]→ skull.turn.idle': { conversations: 2, times: 2 },
    });
  });

  it('follows eventless transitions through a transient state and counts repeats once per conversation', async () => {
    const chat = recordedFixtures().find((j) => j.machine === 'chat')!;
    const counts = countTaken((await loadMachine('chat'))!, [chat.steps]);
    expect(counts.get('chat.retrieving —xstate.done.actor.retrieve→ chat.guarding')).toEqual({ conversations: 1, times: 1 });
    expect(counts.get('chat.checkingCitations —always→ chat.answered')).toEqual({ conversations: 1, times: 1 });
    const t2 = recordedFixtures().find((j) => j.machine === 't2live')!;
    const t2counts = countTaken((await loadMachine('t2live'))!, [t2.steps]);
    expect(t2counts.get('t2live.session.live.dialogue.conversing.interlocutorTurn —interlocutor.turnComplete→ t2live.session.live.dialogue.conversing.candidateTurn')).toEqual({ conversations: 1, times: 2 });
  });

  it('counts nothing for an event that changed no state and has no transition', async () => {
    const skull = (await loadMachine('skull'))!;
    const steps = [
      { event: { type: 'xstate.init' }, state: { turn: 'idle', debounce: 'quiet' } },
      { event: { type: 'no.such.event' }, state: { turn: 'idle', debounce: 'quiet' } },
    ];
    expect(countTaken(skull, [steps]).size).toBe(0);
  });
});
