import { fromCallback } from 'xstate';
import type { LlmProvider } from '../../machines/llmPort.js';
import type { Logger } from '../../core/log.js';
import type { InterlocutorEvent, InterlocutorInput, ToInterlocutor, Turn } from '../../machines/t2live.js';
import type { Subject } from './subjects.js';
import { backgroundOf } from './factSheetResponder.js';

/**
 * The text-mode interlocutor (no GEMINI_API_KEY): same events as the Gemini actor, so the same
 * chart and protocol run. It sends the §3 prompt and the dialogue so far to a text provider; the
 * offline provider answers from the fact sheet in `offlineHints` (actors/t2/offlineResponder.ts).
 */
export interface TextInterlocutorDeps {
  subject: (sujetId: string) => Subject | undefined;
  systemPrompt: (sujetId: string) => string;
  provider: LlmProvider;
  model: string;
  logger: Logger;
  now?: () => number;
  /**
   * Resolves once the session's writes asked for so far are in the store (actors/t2/t2Wiring.ts).
   * Awaited before a reply is sent: a candidate turn the client saw answered is stored, even on
   * a Postgres pool where the write runs behind the frames.
   */
  written?: () => Promise<void>;
  /**
   * A session taken over from another instance: the dialogue so far, so the next reply follows
   * it (the offline provider reads the history: a fact already given is not given again unasked).
   */
  history?: readonly Turn[];
}

export function textInterlocutor(deps: TextInterlocutorDeps) {
  const now = deps.now ?? Date.now;
  return fromCallback<ToInterlocutor, InterlocutorInput>(({ sendBack, receive, input }) => {
    const send = (e: InterlocutorEvent): void => sendBack(e);
    const subject = deps.subject(input.sujetId);
    const t0 = now();
    let stopped = false;
    const controller = new AbortController();
    const history: Array<{ role: 'user' | 'assistant'; content: string }> = (deps.history ?? []).map((t) => ({ role: t.speaker === 'candidate' ? 'user' as const : 'assistant' as const, content: t.text }));
    let chain = Promise.resolve();

    const answer = async (question: string): Promise<string> => {
      history.push({ role: 'user', content: question });
      const result = await deps.provider.generate({
        model: deps.model,
        system: deps.systemPrompt(input.sujetId),
        messages: history,
        maxTokens: 120,
        purpose: 't2',
        offlineHints: { factSheet: subject?.factSheet ?? [], background: subject ? backgroundOf(subject) : '' },
        signal: controller.signal,
      });
      history.push({ role: 'assistant', content: result.text });
      return result.text;
    };

    // Ready on the next tick, as a real connection would be.
    queueMicrotask(() => {
      if (!stopped) send({ type: 'interlocutor.ready' });
    });

    receive((event) => {
      if (stopped || event.type !== 'candidate.text') return;
      chain = chain.then(async () => {
        try {
          const text = await answer(event.text);
          await deps.written?.();
          if (stopped) return;
          send({ type: 'interlocutor.transcript', speaker: 'interlocutor', text, atMs: now() - t0 });
          send({ type: 'interlocutor.turnComplete' });
        } catch (err) {
          if (!stopped) {
            deps.logger.warn({ err: (err as Error).message, session: input.sessionId }, 't2 text interlocutor failed');
            send({ type: 'interlocutor.failed', message: 'l’interlocuteur texte n’a pas répondu' });
          }
        }
      });
    });

    return () => {
      stopped = true;
      controller.abort();
    };
  });
}
