import type { ActorRefFrom } from 'xstate';
import type { GenerateCommand, skullMachine } from '../../machines/skull.js';
import type { LlmProvider } from '../../machines/llmPort.js';

/** The device's actor as the effects use it: answer it, and know when it stops or fails. */
interface SkullSelf {
  send: ActorRefFrom<typeof skullMachine>['send'];
  subscribe(observer: { complete: () => void; error: (err: unknown) => void }): { unsubscribe(): void };
}

/**
 * The skull chart's `generate` and `abortGenerate` effects over one provider: `generate` starts the
 * provider call and answers the device's actor with `generate.done` / `generate.failed` naming the
 * attempt; `abortGenerate` (run when the chart leaves `attempting`: timeout, cancel, answer)
 * aborts the call if it still runs. An effect and an event back instead of a promise actor
 * created and stopped per attempt, which costs a spawn and a stop on every turn. The AbortController of the call in flight is kept
 * here, per actor, only while it runs (the chart's context stays data); an aborted call still
 * answers, naming its old attempt, and the chart's `isThisAttempt` guard ignores it. An actor
 * stopped (fleet eviction, idle stop, shutdown) or failed while its call runs does not run
 * `attempting`'s exit, so the call is also aborted on the actor's completion or error: the
 * invoked actor this replaced was stopped with its parent, and a provider request must not
 * outlive the device that asked for it.
 */
export function generateEffects(provider: LlmProvider) {
  const running = new WeakMap<object, AbortController>();
  const generate = ({ self }: { self: SkullSelf }, { attempt, request }: GenerateCommand): void => {
    const controller = new AbortController();
    running.get(self)?.abort();
    running.set(self, controller);
    // Set when the actor stops or fails during the call: abort it, and answer nobody.
    let actorEnded = false;
    const end = (): void => {
      actorEnded = true;
      controller.abort();
    };
    const onEnd = self.subscribe({ complete: end, error: end });
    const settle = (): boolean => {
      onEnd.unsubscribe();
      if (running.get(self) === controller) running.delete(self);
      return !actorEnded;
    };
    provider.generate({ ...request, signal: controller.signal }).then(
      (result) => {
        if (settle()) self.send({ type: 'generate.done', attempt, result });
      },
      (error: unknown) => {
        if (settle()) self.send({ type: 'generate.failed', attempt, error });
      },
    );
  };
  const abortGenerate = ({ self }: { self: SkullSelf }): void => {
    const controller = running.get(self);
    if (!controller) return;
    running.delete(self);
    controller.abort();
  };
  return { generate, abortGenerate };
}
