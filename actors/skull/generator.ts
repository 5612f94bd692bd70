import type { ActorRefFrom } from 'xstate';
import type { GenerateCommand, skullMachine } from '../../machines/skull.js';
import type { LlmProvider } from '../llm/types.js';

type SkullSelf = Pick<ActorRefFrom<typeof skullMachine>, 'send'>;

/**
 * The skull chart's `generate` and `abortGenerate` effects over one provider: `generate` starts the
 * provider call and answers the device's actor with `generate.done` / `generate.failed` naming the
 * attempt; `abortGenerate` (run when the chart leaves `attempting`: timeout, cancel, answer)
 * aborts the call if it still runs. An effect and an event back instead of a promise actor
 * created and stopped per attempt (issue 17). The AbortController of the call in flight is kept
 * here, per actor, only while it runs (the chart's context stays data); an aborted call still
 * answers, naming its old attempt, and the chart's `isThisAttempt` guard ignores it.
 */
export function generateEffects(provider: LlmProvider) {
  const running = new WeakMap<object, AbortController>();
  const generate = ({ self }: { self: SkullSelf }, { attempt, request }: GenerateCommand): void => {
    const controller = new AbortController();
    running.get(self)?.abort();
    running.set(self, controller);
    const settle = () => {
      if (running.get(self) === controller) running.delete(self);
    };
    provider.generate({ ...request, signal: controller.signal }).then(
      (result) => {
        settle();
        self.send({ type: 'generate.done', attempt, result });
      },
      (error: unknown) => {
        settle();
        self.send({ type: 'generate.failed', attempt, error });
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
