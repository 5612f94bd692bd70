import express, { type ErrorRequestHandler, type IRouter, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Metrics } from '../../core/metrics.js';
import type { Logger } from '../../core/log.js';
import type { ChatAnswer, ChatSettings, DocsAssistant } from '../../machines/chatContract.js';
import { openSse } from './sse.js';

/**
 * The docs assistant's JSON API for programs (docs/api.md):
 *   GET  /api/search?q=…&k=…          → {passages: [{path, section, anchor, score, text, lines}]}
 *   POST /api/chat {question, history?} → {answer, outOfScope, confidence, lang, notice?, sources: [{path, section, href, lang}], …}
 *   POST /api/chat/stream (same body)   → text/event-stream: `delta` {text}…, then `answer` | `error`
 *                                          (`reset`: a retried model call starts over; drop the deltas)
 * Parse + validate + route only. Bad input → 400 with the zod issues; nothing else happens.
 */
const MAX_QUESTION_CHARS = 2000;

const searchQuerySchema = z.object({
  q: z.string().trim().min(1, 'q is required').max(MAX_QUESTION_CHARS),
  k: z.coerce.number().int().min(1).max(50).default(5),
});

const turnSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.string().max(8000) });

const chatBodySchema = z.object({
  question: z.string().trim().min(1, 'question is required').max(MAX_QUESTION_CHARS),
  history: z.array(turnSchema).max(40).optional(),
});

export interface DocsApiDeps {
  assistant: DocsAssistant;
  /** Settings of API answers (the configured defaults, unless the surface says otherwise). */
  settings?: () => ChatSettings;
  logger?: Logger;
  metrics?: Pick<Metrics, 'inputRejected'>;
}

function badRequest(res: Response, deps: DocsApiDeps, reason: string, issues: z.core.$ZodIssue[]): void {
  deps.metrics?.inputRejected.inc({ surface: 'docs', reason });
  res.status(400).json({ error: 'invalid request', issues: issues.map((i) => ({ path: i.path, code: i.code, message: i.message })) });
}

/** What leaves the API for one answer: paths relative to the corpus root, no internals. */
function answerJson(a: ChatAnswer): Record<string, unknown> {
  return {
    answer: a.answer,
    outOfScope: a.outOfScope,
    confidence: a.confidence,
    lang: a.lang,
    ...(a.notice ? { notice: a.notice } : {}),
    state: a.state,
    // `[n]` in `answer` is sources[n-1].
    sources: a.sources.map((s) => ({ path: s.path, section: s.section, href: s.href, lang: s.lang })),
    flagged: a.flagged,
    provider: a.provider,
    model: a.model,
  };
}

export function mountDocsApi(app: IRouter, deps: DocsApiDeps): void {
  const settings = deps.settings ?? (() => deps.assistant.defaults());
  const json = express.json({ limit: '64kb' });
  const router = express.Router();

  router.get('/api/search', async (req: Request, res: Response) => {
    const parsed = searchQuerySchema.safeParse(req.query);
    if (!parsed.success) return badRequest(res, deps, 'search_params', parsed.error.issues);
    const { q, k } = parsed.data;
    const passages = deps.assistant.retrieve ? await deps.assistant.retrieve(q, k) : deps.assistant.search(q, k);
    res.json({
      passages: passages.map((p) => ({ path: p.path, section: p.section, anchor: p.anchor, score: p.score, text: p.text, lines: [p.lineStart, p.lineEnd] })),
    });
  });

  router.post('/api/chat', json, async (req: Request, res: Response) => {
    const parsed = chatBodySchema.safeParse(req.body ?? {});
    if (!parsed.success) return badRequest(res, deps, 'chat_body', parsed.error.issues);
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    const answer = await deps.assistant.ask({ question: parsed.data.question, history: parsed.data.history ?? [], settings: settings(), signal: controller.signal });
    res.status(answer.state === 'failed' ? 503 : 200).json(answerJson(answer));
  });

  router.post('/api/chat/stream', json, async (req: Request, res: Response) => {
    const parsed = chatBodySchema.safeParse(req.body ?? {});
    if (!parsed.success) return badRequest(res, deps, 'chat_body', parsed.error.issues);
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    const sse = openSse(res);
    try {
      const answer = await deps.assistant.ask({
        question: parsed.data.question,
        history: parsed.data.history ?? [],
        settings: settings(),
        signal: controller.signal,
        ...sse.stream,
      });
      sse.send('answer', answerJson(answer));
    } catch (err) {
      deps.logger?.error({ err }, 'chat stream failed');
      sse.send('error', { message: 'internal error' });
    }
    sse.end();
  });

  // Body parser failures (bad JSON, too large) answer in the API's own format, not an HTML page.
  const onError: ErrorRequestHandler = (err: { status?: number; type?: string }, _req, res, next) => {
    if (res.headersSent) return next(err);
    const status = err.status === 413 ? 413 : err.status && err.status < 500 ? 400 : 500;
    deps.metrics?.inputRejected.inc({ surface: 'docs', reason: err.type ?? 'error' });
    if (status === 500) deps.logger?.error({ err }, 'docs api error');
    res.status(status).json({ error: status === 413 ? 'request too large' : status === 400 ? 'invalid JSON body' : 'internal error' });
  };
  router.use(onError);
  app.use(router);
}
