/**
 * The skull chart's `generate` effect with the real wiring: a provider request must not outlive
 * the device actor that asked for it. The effect aborts the call when the chart leaves
 * `attempting` (timeout, cancel, answer — the model test's paths), and also when the actor is
 * stopped mid-call (fleet eviction, idle stop, shutdown), where no exit action runs.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { wireSkull } from '../../actors/skull/skullWiring.js';
import type { GenerateRequest, GenerateResult, LlmProvider } from '../../machines/llmPort.js';
import { memoryLogger, testConfig } from './support.js';

/** A provider whose calls wait until aborted (then reject, as the SDKs do). */
class HangingProvider implements LlmProvider {
  readonly name = 'offline' as const;
  readonly signals: AbortSignal[] = [];
  generate(request: GenerateRequest): Promise<GenerateResult> {
    const signal = request.signal!;
    this.signals.push(signal);
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
  }
}

function startDevice() {
  const { logger } = memoryLogger();
  const provider = new HangingProvider();
  const wiring = wireSkull({ config: testConfig(), logger, provider });
  const actor = createActor(wiring.machine(() => Promise.resolve(), logger), { input: wiring.input('dev-1') });
  actor.start();
  return { actor, provider };
}

describe('skull generate effect', () => {
  it('aborts the provider call in flight when the device actor is stopped', async () => {
    const { actor, provider } = startDevice();
    actor.send({ type: 'ai.request', text: 'Présente-toi.' });
    await expect.poll(() => provider.signals.length).toBe(1);
    expect(provider.signals[0]!.aborted).toBe(false);
    actor.stop();
    expect(provider.signals[0]!.aborted).toBe(true);
  });

  it('aborts it when the turn is cancelled, and the actor goes on', async () => {
    const { actor, provider } = startDevice();
    actor.send({ type: 'ai.request', text: 'Présente-toi.' });
    await expect.poll(() => provider.signals.length).toBe(1);
    actor.send({ type: 'ai.cancel' });
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(actor.getSnapshot().status).toBe('active');
    // The « (interrompu) » reply is published, and the device is free for the next turn.
    await expect.poll(() => actor.getSnapshot().matches({ turn: 'idle' })).toBe(true);
    actor.stop();
  });
});
