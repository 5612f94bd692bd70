import { fromCallback } from 'xstate';
import type { PublishCommand, SkullEvent } from '../../machines/skull.js';
import type { Outgoing } from './types.js';

/** What an edge gives: publish one reply on its connection, resolved once the broker acked it. */
export type PublishReply = (outgoing: Outgoing) => Promise<void>;

/**
 * The skull chart's `publisher`: one long-lived actor per device (spawned with the chart), fed by
 * `publish` commands and answering each with `publish.done` or `publish.failed` naming its turn,
 * instead of a promise actor created and stopped per turn (issue 17). The chart's publishTimeout
 * stays the bound on the wait: an answer that comes after it names an old turn and is ignored.
 */
export function publisherLogic(publish: PublishReply) {
  return fromCallback<PublishCommand>(({ receive, sendBack }) => {
    receive(({ turn, outgoing }) => {
      const answer = (event: Extract<SkullEvent, { type: 'publish.done' | 'publish.failed' }>) => sendBack(event);
      publish(outgoing).then(
        () => answer({ type: 'publish.done', turn }),
        (error: unknown) => answer({ type: 'publish.failed', turn, error: error instanceof Error ? error.message : String(error) }),
      );
    });
  });
}
