/**
 * Shared machinery of the wire-level LLM fakes (openaiFake.ts, anthropicFake.ts, geminiFake.ts).
 *
 * A fake is a real HTTP server on 127.0.0.1:<random port>. Each incoming request is recorded, then
 * answered with the next scripted reply (FIFO), or with the default reply once the queue is empty.
 * The protocol modules only know how to turn a reply into bytes; queueing, delays, dropped sockets
 * and recording live here so that the three fakes behave the same way.
 *
 * Delays use real timers on purpose: the fake runs outside the code under test, and a test that
 * drives simulated time must not also freeze the fake.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What every scripted reply may carry, whatever the protocol. */
export interface CommonReply {
  /** HTTP status; 200 by default. A status ≥ 400 without `body`/`raw` gets the protocol's error JSON. */
  status?: number;
  /** Extra response headers, e.g. `{'retry-after': '2'}` or `{'retry-after-ms': '150'}`. */
  headers?: Record<string, string>;
  /** A JSON body sent as is (overrides what the protocol would render). */
  body?: unknown;
  /** Raw text sent as is with `content-type: application/json` (for malformed bodies). */
  raw?: string;
  /** Wait this long before sending anything (the client may abort meanwhile). */
  delayMs?: number;
  /** Wait this long between streamed (SSE) events. */
  chunkDelayMs?: number;
  /**
   * Streaming: send all but the last N events at once, then hang for `stallMs` (default 60 s) —
   * a stream that stops mid-way, for aborting in the middle of an answer.
   */
  stallBeforeLast?: number;
  stallMs?: number;
  /**
   * Destroy the socket: `true`/`'before-headers'` answers nothing at all, `'mid-body'` sends the
   * headers and the first part of the body, then cuts.
   */
  drop?: boolean | 'before-headers' | 'mid-body';
  /** Error message used in the protocol's error body (status ≥ 400). */
  errorMessage?: string;
}

type Outcome = 'replied' | 'client-closed' | 'dropped';

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
  /** True once the client closed the connection before the reply was complete (abort test). */
  clientClosed: boolean;
  /** Resolves when this request is over: replied in full, closed by the client, or dropped by the fake. */
  done: Promise<Outcome>;
}

/** Bytes to send for one reply, as the protocol renders them. */
interface Rendered {
  status: number;
  headers: Record<string, string>;
  /** One chunk for JSON; one chunk per SSE event when streaming. */
  chunks: string[];
}

/** One entry of a fake's model catalog (`GET …/models`). */
interface FakeModel {
  id: string;
  /** OpenAI: `shutdown_date` (YYYY-MM-DD) of a deprecated model. */
  shutdownDate?: string;
  /** Anthropic: lifecycle stage and scheduled retirement (RFC 3339). */
  lifecycle?: 'active' | 'deprecated' | 'retired';
  retiresAt?: string;
}

/** The models list a fake serves: entries, or a reply overriding it (an error status, a drop…). */
type Catalog = FakeModel[] | CommonReply;

export interface Protocol<R> {
  /**
   * The provider's models list (GET): recorded like any request but answered from the catalog
   * (`setModels`), never from the reply queue. Without a catalog the route answers 404.
   */
  catalog?: { matches(method: string, path: string): boolean; render(models: FakeModel[]): unknown };
  /** Human name used in the 404 message. */
  name: string;
  /** Does this method + path belong to the API (else 404 in the protocol's error format)? */
  matches(method: string, path: string): boolean;
  /** Turn a reply into bytes, given the request (streaming or not, model asked…). */
  render(reply: R & CommonReply, req: RecordedRequest): Rendered;
  /** The protocol's error JSON for a status. */
  errorBody(status: number, message: string): unknown;
  /**
   * What the real API rejects with HTTP 400 (e.g. `temperature` sent to a GPT-5 model): the message,
   * or undefined when the request is acceptable. A rejected request does not consume a scripted reply.
   */
  validate?(req: RecordedRequest): string | undefined;
}

export interface WireFake<R> {
  /** Base URL with no trailing slash, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queue replies, answered in order, one per request. */
  script(...replies: Array<R & CommonReply>): void;
  /**
   * Queue replies for the requests `match` accepts only, answered in order, before the main queue:
   * for tests where several surfaces call the same fake concurrently and arrival order is not
   * theirs to decide (a background call landing between two scripted ones took the other's reply).
   */
  scriptWhen(match: (req: RecordedRequest) => boolean, ...replies: Array<R & CommonReply>): void;
  /** The reply used when the queue is empty. */
  setDefault(reply: R & CommonReply): void;
  /** Replies still queued. */
  pending(): number;
  /** Resolves when at least `n` requests have been received (no sleeping in tests). */
  waitForRequests(n: number): Promise<RecordedRequest[]>;
  /** Resolves with the first request received (already or later) that `match` accepts. */
  waitForRequest(match: (req: RecordedRequest) => boolean): Promise<RecordedRequest>;
  /** What `GET …/models` answers from now on: entries, or an override such as `{ status: 500 }`. */
  setModels(catalog: Catalog): void;
  /** Forget recorded requests and queued replies (keeps the default). */
  reset(): void;
  close(): Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Renders a reply that overrides the protocol (raw text, explicit body, or an error status). */
function renderOverride<R>(protocol: Protocol<R>, reply: CommonReply): Rendered | undefined {
  const status = reply.status ?? 200;
  const headers = { 'content-type': 'application/json', ...reply.headers };
  if (reply.raw !== undefined) return { status, headers, chunks: [reply.raw] };
  if (reply.body !== undefined) return { status, headers, chunks: [JSON.stringify(reply.body)] };
  if (status >= 400) {
    const body = protocol.errorBody(status, reply.errorMessage ?? `scripted ${status}`);
    return { status, headers, chunks: [JSON.stringify(body)] };
  }
  return undefined;
}

export interface FakeOptions<R> {
  /** The reply used when no scripted reply is queued. */
  defaultReply?: R & CommonReply;
  /** Reject what the real API rejects (default true); false accepts any body. */
  strict?: boolean;
}

export async function startWireFake<R>(protocol: Protocol<R>, defaultReply: R & CommonReply, strict = true): Promise<WireFake<R>> {
  const queue: Array<R & CommonReply> = [];
  const keyed: Array<{ match: (req: RecordedRequest) => boolean; replies: Array<R & CommonReply> }> = [];
  let fallback = defaultReply;
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ n: number; resolve: (r: RecordedRequest[]) => void }> = [];
  const sockets = new Set<Socket>();
  let catalog: Catalog | undefined;

  const notify = (): void => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (w && requests.length >= w.n) {
        waiters.splice(i, 1);
        w.resolve(requests.slice());
      }
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    let settle: (o: Outcome) => void = () => undefined;
    const done = new Promise<Outcome>((resolve) => { settle = resolve; });
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      rawBody,
      body: parseJson(rawBody),
      clientClosed: false,
      done,
    };
    // A client that aborts closes its socket: seen here before our reply is complete.
    const closed = new AbortController();
    let droppedByUs = false;
    res.on('close', () => {
      closed.abort();
      if (droppedByUs) return settle('dropped');
      if (!res.writableFinished) {
        recorded.clientClosed = true;
        return settle('client-closed');
      }
      settle('replied');
    });
    requests.push(recorded);
    notify();

    if (catalog !== undefined && protocol.catalog?.matches(recorded.method, recorded.path)) {
      const list = catalog;
      if (Array.isArray(list)) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(protocol.catalog.render(list)));
        return;
      }
      await sleep(list.delayMs ?? 0, closed.signal);
      if (list.drop) {
        droppedByUs = true;
        req.socket.destroy();
        return;
      }
      const rendered = renderOverride(protocol, list) ?? { status: 200, headers: { 'content-type': 'application/json' }, chunks: [JSON.stringify(protocol.catalog.render([]))] };
      res.writeHead(rendered.status, rendered.headers).end(rendered.chunks.join(''));
      return;
    }
    if (!protocol.matches(recorded.method, recorded.path)) {
      const body = protocol.errorBody(404, `${protocol.name} fake: no route ${recorded.method} ${recorded.path}`);
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const invalid = strict ? protocol.validate?.(recorded) : undefined;
    if (invalid !== undefined) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(protocol.errorBody(400, invalid)));
      return;
    }
    const reply = keyed.find((k) => k.replies.length > 0 && k.match(recorded))?.replies.shift() ?? queue.shift() ?? fallback;
    await sleep(reply.delayMs ?? 0, closed.signal);
    if (closed.signal.aborted) return;

    if (reply.drop === true || reply.drop === 'before-headers') {
      droppedByUs = true;
      req.socket.destroy();
      return;
    }
    const rendered = renderOverride(protocol, reply) ?? protocol.render(reply, recorded);
    res.writeHead(rendered.status, rendered.headers);
    if (reply.drop === 'mid-body') {
      const first = rendered.chunks[0] ?? '';
      // Half of a JSON body or the first SSE event: the client has started reading, then the cut.
      res.write(rendered.chunks.length > 1 ? first : first.slice(0, Math.max(1, Math.floor(first.length / 2))));
      droppedByUs = true;
      setImmediate(() => req.socket.destroy());
      return;
    }
    const stallAt = reply.stallBeforeLast !== undefined ? rendered.chunks.length - reply.stallBeforeLast : -1;
    for (const [i, chunk] of rendered.chunks.entries()) {
      if (closed.signal.aborted) return;
      if (i > 0) await sleep(reply.chunkDelayMs ?? 0, closed.signal);
      if (i === stallAt) await sleep(reply.stallMs ?? 60_000, closed.signal);
      if (closed.signal.aborted) return;
      res.write(chunk);
    }
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  server.keepAliveTimeout = 1000;
  server.on('connection', (s: Socket) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    script: (...replies) => { queue.push(...replies); },
    scriptWhen: (match, ...replies) => { keyed.push({ match, replies }); },
    setDefault: (reply) => { fallback = reply; },
    pending: () => queue.length,
    setModels: (c) => { catalog = c; },
    waitForRequests: (n) =>
      requests.length >= n ? Promise.resolve(requests.slice()) : new Promise((resolve) => waiters.push({ n, resolve })),
    waitForRequest: async (match) => {
      for (let n = 1; ; n++) {
        const seen = requests.length >= n ? requests : await new Promise<RecordedRequest[]>((resolve) => waiters.push({ n, resolve }));
        const hit = seen[n - 1];
        if (hit && match(hit)) return hit;
      }
    },
    reset: () => { queue.length = 0; keyed.length = 0; requests.length = 0; },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One SSE event as sent on the wire. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } as const;

/** Splits a text into a few deltas so streaming tests see more than one chunk. */
export function splitDeltas(text: string): string[] {
  const words = text.split(/(?<=\s)/);
  return words.length > 0 ? words : [''];
}
