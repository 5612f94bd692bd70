import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Logger } from '../../../core/log.js';

/**
 * One long-lived Python process running Grammalecte (driver.py), spoken to in JSON lines.
 *
 * - started once per process, warmed before it says `ready` (the first check compiles the rule
 *   graph), without blocking the event loop: it is another process;
 * - one request at a time is written to it; the others wait here, in order, so that a production is
 *   graded by Grammalecte whatever the load (refusing past a few waiting requests made the grade
 *   depend on how many candidates finished at the same moment). The wait is bounded by memory
 *   (`maxQueuedChars` of text), not by a count;
 * - each request has a timeout counted from its write (time spent waiting is not the process's
 *   fault); a timed-out process is killed and restarted (it is stuck on that text);
 * - a crash restarts it (with a pause that doubles, up to 30 s): the request being checked fails,
 *   the waiting ones are written to the new process (they fail if it cannot start);
 * - lone surrogates and U+FFFD become spaces first (Python cannot encode the first; Grammalecte
 *   skips a sentence holding the second);
 * - once stopping, nothing more is written: a check rejects with an error saying so, never an
 *   uncaught write-after-end;
 * - every line it writes is parsed by zod: a malformed answer fails its request, nothing else.
 */

/** A word and its morphology (Grammalecte's tags, e.g. `>sœur/:N:f:s/*`), placed around an error. */
const wordSchema = z.object({ w: z.string(), pos: z.enum(['before', 'flagged', 'after']), m: z.array(z.string()) });

const grammarErrorSchema = z.object({
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  rule: z.string(),
  type: z.string(),
  message: z.string(),
  suggestions: z.array(z.string()),
  /** Morphology (Grammalecte tags) of the two words before, the flagged words and three after (gn, ppas, conj). */
  words: z.array(wordSchema).optional(),
}).refine((e) => e.end >= e.start, 'end before start');

const spellingErrorSchema = z.object({
  start: z.number().int().min(0), end: z.number().int().min(0), word: z.string(),
  /** Only for a capitalised word opening a sentence: Grammalecte's suggestions (name or misspelling?). */
  suggestions: z.array(z.string()).optional(),
});

const readySchema = z.object({ type: z.literal('ready'), version: z.string(), warmMs: z.number() });
/** Each « a » of the text with the morphology of the two words before it (a missed « à »?). */
const aTokenSchema = z.object({ start: z.number().int().min(0), before: z.array(wordSchema) });
/** Every distinct word of the text (and its lower-case form) with Grammalecte's morphology of it. */
const lexSchema = z.record(z.string(), z.array(z.string()));
const answerSchema = z.object({ id: z.number().int(), grammar: z.array(grammarErrorSchema), spelling: z.array(spellingErrorSchema), a: z.array(aTokenSchema).optional(), lex: lexSchema.optional() });
const failureSchema = z.object({ id: z.number().int().nullable(), error: z.string() });

export type GrammarError = z.infer<typeof grammarErrorSchema>;
export type SpellingError = z.infer<typeof spellingErrorSchema>;
type AToken = z.infer<typeof aTokenSchema>;
export type Lex = z.infer<typeof lexSchema>;
export interface CheckResult { grammar: GrammarError[]; spelling: SpellingError[]; a?: AToken[]; lex?: Lex }

export interface SidecarOptions {
  python: string;
  /** Folder holding the `grammalecte` Python package. */
  pythonPath: string;
  timeoutMs: number;
  startTimeoutMs?: number;
  /** Text waiting to be checked, in characters, beyond which a check is refused (memory, not load). */
  maxQueuedChars?: number;
  logger?: Logger;
}

export type SidecarState = 'stopped' | 'starting' | 'ready' | 'failed';

/** What the checker needs of Grammalecte: one process, or a pool of them (pool.ts). */
export interface GrammarEngine {
  readonly state: SidecarState;
  readonly version: string;
  readonly warmMs: number;
  readonly lastError: string;
  start(): Promise<void>;
  check(text: string): Promise<CheckResult>;
  stop(): Promise<void>;
  pid(): number | undefined;
}

/** 32 M characters (~64 MB as UTF-16): some 10,000 long productions waiting, far past any real queue. */
const DEFAULT_MAX_QUEUED_CHARS = 32 * 1024 * 1024;

interface Pending { resolve: (r: CheckResult) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
interface Waiting { text: string; resolve: (r: CheckResult) => void; reject: (e: Error) => void }

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Lone surrogates replaced by U+FFFD (same length: offsets hold). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * The text as Grammalecte gets it: Python cannot encode a lone surrogate (UnicodeEncodeError), and
 * Grammalecte skips a whole sentence holding U+FFFD; a space instead keeps the length (offsets
 * hold) and the sentence checked (a doubled space is a typographic rule, dropped by mapping.ts).
 */
function forGrammalecte(text: string): string {
  return text.replace(LONE_SURROGATE, ' ').replace(/\uFFFD/g, ' ');
}

export const GRAMMALECTE_STOPPED = 'Grammalecte stopped: the server is shutting down';

function driverPath(): string {
  const here = fileURLToPath(new URL('./driver.py', import.meta.url));
  // Compiled to dist/…: the driver stays with the sources (tsc copies no .py file).
  const candidates = [here, here.replace(/([\\/])dist([\\/])/, '$1')];
  return candidates.find((p) => existsSync(p)) ?? here;
}

export class GrammalecteSidecar implements GrammarEngine {
  state: SidecarState = 'stopped';
  version = '';
  warmMs = 0;
  lastError = '';
  restarts = 0;
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly waiting: Waiting[] = [];
  private waitingChars = 0;
  private nextId = 1;
  private ready: Promise<void> | undefined;
  private stopping = false;
  private restartDelayMs = 500;
  private restartTimer: NodeJS.Timeout | undefined;
  /** The last start reached `ready` (a crash after it is worth waiting for the restart). */
  private lastStartOk = false;
  /** A process killed for a stuck check, until its exit is seen. */
  private killed: ChildProcessWithoutNullStreams | undefined;

  constructor(private readonly opts: SidecarOptions) {}

  /** Starts (or returns the start in progress); resolves when the warmed checker is ready. */
  start(): Promise<void> {
    if (this.ready && (this.state === 'ready' || this.state === 'starting')) return this.ready;
    this.stopping = false;
    this.state = 'starting';
    this.ready = new Promise<void>((resolve, reject) => {
      const child = spawn(this.opts.python, [driverPath()], {
        env: { ...process.env, PYTHONPATH: this.opts.pythonPath, PYTHONDONTWRITEBYTECODE: '', PYTHONIOENCODING: 'utf-8' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      this.child = child;
      // Never holds the process open; when palabre exits, the driver reads EOF and exits too.
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
      let stderr = '';
      const startTimer = setTimeout(() => {
        fail(new Error(`Grammalecte did not start within ${this.opts.startTimeoutMs ?? 20_000} ms`));
        child.kill('SIGKILL');
      }, this.opts.startTimeoutMs ?? 20_000);
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(startTimer);
        this.state = 'failed';
        this.lastError = err.message;
        this.lastStartOk = false;
        this.failWaiting(new Error(`Grammalecte could not start: ${err.message}`));
        reject(err);
      };
      child.stderr.on('data', (b: Buffer) => { stderr = (stderr + b.toString()).slice(-2000); });
      // A write to a process that just died fails here (EPIPE), not as an uncaught exception; its
      // request fails when the exit is seen.
      child.stdin.on('error', (err) => this.opts.logger?.warn({ err: err.message }, 'Grammalecte sidecar pipe closed'));
      child.on('error', (err) => fail(new Error(`cannot run ${this.opts.python}: ${err.message}`)));
      child.on('exit', (code, signal) => {
        const why = `Grammalecte exited (${signal ?? code})${stderr ? `: ${stderr.trim().split('\n').slice(-1)[0]}` : ''}`;
        fail(new Error(why));
        this.onExit(child, why);
      });
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        let value: unknown;
        try { value = JSON.parse(line); } catch { value = undefined; }
        if (!settled) {
          const ready = readySchema.safeParse(value);
          if (!ready.success) return fail(new Error(`unexpected first line from Grammalecte: ${line.slice(0, 200)}`));
          settled = true;
          clearTimeout(startTimer);
          this.state = 'ready';
          this.version = ready.data.version;
          this.warmMs = ready.data.warmMs;
          this.restartDelayMs = 500;
          this.lastStartOk = true;
          resolve();
          this.dispatch();
          return;
        }
        this.onLine(value, line);
      });
    });
    // A failed start is reported through `state`/`lastError`; callers that await handle it.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  private onLine(value: unknown, raw: string): void {
    this.settleLine(value, raw);
    this.dispatch();
  }

  private settleLine(value: unknown, raw: string): void {
    const ok = answerSchema.safeParse(value);
    if (ok.success) {
      const p = this.pending.get(ok.data.id);
      if (!p) return; // answer to a request that already timed out
      this.pending.delete(ok.data.id);
      clearTimeout(p.timer);
      p.resolve({ grammar: ok.data.grammar, spelling: ok.data.spelling, ...(ok.data.a ? { a: ok.data.a } : {}), ...(ok.data.lex ? { lex: ok.data.lex } : {}) });
      return;
    }
    const bad = failureSchema.safeParse(value);
    if (bad.success && bad.data.id !== null) {
      const p = this.pending.get(bad.data.id);
      if (p) {
        this.pending.delete(bad.data.id);
        clearTimeout(p.timer);
        p.reject(new Error(`Grammalecte: ${bad.data.error}`));
      }
      return;
    }
    // Invalid output that names no request: fail the oldest one (answers come in order).
    const first = this.pending.entries().next();
    if (!first.done) {
      const [id, p] = first.value;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new Error(`invalid answer from Grammalecte: ${raw.slice(0, 200)}`));
    }
    this.opts.logger?.warn({ line: raw.slice(0, 200) }, 'invalid line from the Grammalecte sidecar');
  }

  private onExit(child: ChildProcessWithoutNullStreams, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error(why));
      this.pending.delete(id);
    }
    if (this.stopping) { this.state = 'stopped'; this.failWaiting(new Error(GRAMMALECTE_STOPPED)); return; }
    this.state = 'failed';
    this.lastError = why;
    this.opts.logger?.warn({ reason: why, retryInMs: this.restartDelayMs }, 'Grammalecte sidecar stopped: restarting');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.restarts += 1;
      this.start().catch(() => undefined);
    }, this.restartDelayMs);
    this.restartTimer.unref();
    this.restartDelayMs = Math.min(this.restartDelayMs * 2, 30_000);
  }

  /**
   * Checks one text. Waits its turn behind the others (in order); fails at once only when the
   * process is not running (stopped, failed to start) or the waiting text passes `maxQueuedChars`.
   */
  check(text: string): Promise<CheckResult> {
    if (this.stopping) return Promise.reject(new Error(GRAMMALECTE_STOPPED));
    if (!this.accepting()) return Promise.reject(new Error(`Grammalecte not ready (${this.state}${this.lastError ? `: ${this.lastError}` : ''})`));
    const max = this.opts.maxQueuedChars ?? DEFAULT_MAX_QUEUED_CHARS;
    if (this.waitingChars + text.length > max) return Promise.reject(new Error(`Grammalecte busy: ${this.waitingChars} characters already waiting (limit ${max})`));
    return new Promise<CheckResult>((resolve, reject) => {
      this.waiting.push({ text, resolve, reject });
      this.waitingChars += text.length;
      this.dispatch();
    });
  }

  /**
   * Whether a check now waits its turn (ready, warming up, or restarting after a crash) rather than
   * failing. Waiting through a restart is worth it only for a process that ran: one that cannot
   * start (no Python, a broken install) would hold every production for the restart's pause.
   */
  accepting(): boolean {
    if (this.stopping) return false;
    return this.state === 'ready' || this.state === 'starting' || (this.restartTimer !== undefined && this.lastStartOk);
  }

  /** Requests waiting (not yet written) plus the one being checked: the pool sends work to the least loaded. */
  load(): number {
    return this.waiting.length + this.pending.size;
  }

  /** Writes the next waiting request when the process is ready and checking nothing. */
  private dispatch(): void {
    const child = this.child;
    if (this.state !== 'ready' || !child || child === this.killed || this.stopping || this.pending.size > 0) return;
    const next = this.waiting.shift();
    if (!next) return;
    this.waitingChars -= next.text.length;
    if (!child.stdin.writable) {
      // The pipe closed under us (the process is exiting): the exit handler restarts it.
      this.waiting.unshift(next);
      this.waitingChars += next.text.length;
      return;
    }
    const id = this.nextId++;
    const timer = setTimeout(() => {
      if (!this.pending.delete(id)) return;
      next.reject(new Error(`Grammalecte took longer than ${this.opts.timeoutMs} ms`));
      // Stuck on this text: every later request would wait behind it. Restart; nothing more is
      // written to it meanwhile (the waiting requests go to the new process).
      this.killed = child;
      child.kill('SIGKILL');
    }, this.opts.timeoutMs);
    this.pending.set(id, { resolve: next.resolve, reject: next.reject, timer });
    child.stdin.write(`${JSON.stringify({ id, text: forGrammalecte(next.text) })}\n`);
  }

  private failWaiting(err: Error): void {
    for (const w of this.waiting.splice(0)) w.reject(err);
    this.waitingChars = 0;
  }

  /**
   * Stops taking work (checks reject with GRAMMALECTE_STOPPED from now on), lets the request being
   * checked finish (the driver answers it before it reads the end of its input), then ends it.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.failWaiting(new Error(GRAMMALECTE_STOPPED));
    const child = this.child;
    if (!child) { this.state = 'stopped'; return; }
    await new Promise<void>((resolve) => {
      // Held open again while it stops (it was unref'd so that it never keeps palabre alive).
      child.ref();
      const killer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      child.once('exit', () => { clearTimeout(killer); resolve(); });
      child.stdin.end();
    });
    this.state = 'stopped';
  }

  /** The child's pid (tests kill it to check the restart). */
  pid(): number | undefined {
    return this.child?.pid;
  }
}
