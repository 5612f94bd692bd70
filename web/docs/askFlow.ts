import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ChatAnswer, ChatSettings, ChatTurn, DocsAssistant } from '../../machines/chatContract.js';
import type { Logger } from '../../core/log.js';
import type { Exchange, ThreadName } from '../../transports/http/session.js';
import type { DocsVisitorSession, DocsVisitorSessions } from './visitor.js';
import { openSse } from '../../transports/http/sse.js';
import { exchangeId, exchangeView } from './views.js';

/**
 * One question from a page, three ways to answer it, same route:
 *  - plain form POST (no JavaScript): the caller renders the whole page with the new exchange;
 *  - `Accept: text/event-stream` (fetch + streaming, the same writer as the API: transports/http/sse.ts):
 *    `delta` events with text as the model writes (`reset`: a retried call starts over, drop them),
 *    then one `done` event with the final sanitised HTML of the exchange;
 *  - `Accept: application/json`: `{state, html, exchange}` in one response.
 */

export const askBodySchema = z.object({
  question: z.string().trim().min(1, 'Écrivez une question.').max(2000, 'Question trop longue (2000 caractères au plus).'),
  doc: z.string().max(500).optional(),
});

export type AskMode = 'page' | 'sse' | 'json';

export function askMode(req: Request): AskMode {
  const accept = req.get('accept') ?? '';
  if (accept.includes('text/event-stream')) return 'sse';
  if (accept.includes('application/json')) return 'json';
  return 'page';
}

/** The last `turns` exchanges as model history (a turn = one question and its answer). */
function historyFrom(thread: Exchange[], turns: number): ChatTurn[] {
  if (turns <= 0) return [];
  return thread.slice(-turns).flatMap((ex): ChatTurn[] => [
    { role: 'user', content: ex.question },
    { role: 'assistant', content: ex.answer },
  ]);
}

function toExchange(question: string, a: ChatAnswer): Exchange {
  return {
    question,
    answer: a.answer,
    state: a.state,
    sources: a.sources.map((s) => ({ path: s.path, section: s.section, href: s.href, anchor: s.anchor, lang: s.lang })),
    confidence: a.confidence,
    lang: a.lang,
    ...(a.notice ? { notice: a.notice } : {}),
    provider: a.provider,
    model: a.model,
    at: Date.now(),
  };
}

interface AskArgs {
  req: Request;
  res: Response;
  assistant: DocsAssistant;
  settings: ChatSettings;
  question: string;
  history: ChatTurn[];
  logger: Logger;
  mode: AskMode;
  /** Id prefix of the page's chat block and its heading level (for the fragment sent to JS). */
  prefix: string;
  headingLevel: 2 | 3;
}

const FAILED = 'La réponse n’a pas pu être produite. Réessayez dans un instant.';

/**
 * Runs the question through the assistant. In `sse`/`json` mode it writes the response itself;
 * in `page` mode it only returns the exchange for the caller to render. Never throws.
 */
async function answerQuestion(a: AskArgs): Promise<Exchange> {
  const abort = new AbortController();
  a.res.on('close', () => {
    if (!a.res.writableFinished) abort.abort();
  });
  const sse = a.mode === 'sse' ? openSse(a.res) : undefined;
  let exchange: Exchange;
  const started = Date.now();
  try {
    const answer = await a.assistant.ask({
      question: a.question,
      history: a.history,
      settings: a.settings,
      signal: abort.signal,
      ...(sse ? sse.stream : {}),
    });
    exchange = toExchange(a.question, answer);
    a.logger.info({ event: 'docs_answer', state: answer.state, sources: answer.sources.length, flagged: answer.flagged.length, ms: Date.now() - started }, 'docs question answered');
  } catch (err) {
    a.logger.error({ event: 'docs_answer_error', err: err instanceof Error ? err.message : String(err) }, 'docs question failed');
    exchange = { question: a.question, answer: FAILED, state: 'failed', sources: [], provider: a.assistant.providerName(), model: a.settings.model, at: Date.now() };
  }
  const fragment = exchangeView(exchange, exchangeId(a.prefix, exchange), a.headingLevel).value;
  if (sse) {
    sse.send('done', { state: exchange.state, html: fragment });
    sse.end();
  } else if (a.mode === 'json') {
    a.res.set('Cache-Control', 'no-store').json({ state: exchange.state, html: fragment, exchange });
  }
  return exchange;
}

export interface ThreadAskArgs extends Omit<AskArgs, 'history'> {
  sessions: DocsVisitorSessions;
  session: DocsVisitorSession;
  thread: ThreadName;
}

/** Both chat pages: answer with the thread's last turns as history, then keep the exchange in it. */
export async function answerInThread(a: ThreadAskArgs): Promise<Exchange> {
  const { sessions, session, thread, ...ask } = a;
  const exchange = await answerQuestion({ ...ask, history: historyFrom(session.threads[thread] ?? [], a.settings.historyTurns) });
  await sessions.append(session, thread, exchange);
  return exchange;
}
