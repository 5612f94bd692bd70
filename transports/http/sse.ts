import type { Response } from 'express';

/**
 * The one Server-Sent Events writer of the docs assistant: the JSON API (/api/chat/stream) and the
 * pages (/assistant/ask, /docs/ask) stream through it, so both behave the same when a model call
 * is retried — a `reset` event tells the client to drop the text of the failed attempt before the
 * new attempt's deltas arrive (a client that ignored it would show both attempts' text).
 */
export interface SseWriter {
  send(event: string, data: unknown): void;
  end(): void;
  /** Callbacks for DocsAssistant.ask: `delta` events, and `reset` when a retried call starts over. */
  readonly stream: { onDelta: (text: string) => void; onReset: () => void };
}

export function openSse(res: Response): SseWriter {
  res.status(200);
  res.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  const send = (event: string, data: unknown): void => {
    if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  return {
    send,
    end: () => {
      if (!res.writableEnded) res.end();
    },
    stream: { onDelta: (text) => send('delta', { text }), onReset: () => send('reset', {}) },
  };
}
