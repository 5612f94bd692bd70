import type { ActorRefFrom } from 'xstate';
import type { PublishCommand, skullMachine } from '../../machines/skull.js';
import type { PublishReply } from '../../transports/mqtt/skullPort.js';

/**
 * The skull chart's `publishReply` effect: publishes the turn's reply and answers the device's
 * actor with `publish.done` or `publish.failed` naming the turn — an effect and an event back,
 * instead of a promise actor created and stopped per turn, and without a long-lived
 * actor per device (a callback actor kept per device costs about 2.8 KB of heap each, +30 % for an
 * idle fleet device). The chart's publishTimeout stays the bound on the wait:
 * an answer that comes after it names an old turn and is ignored.
 */
export function publishEffect(publish: PublishReply) {
  return ({ self }: { self: Pick<ActorRefFrom<typeof skullMachine>, 'send'> }, { turn, outgoing }: PublishCommand): void => {
    publish(outgoing).then(
      () => self.send({ type: 'publish.done', turn }),
      (error: unknown) => self.send({ type: 'publish.failed', turn, error: error instanceof Error ? error.message : String(error) }),
    );
  };
}
