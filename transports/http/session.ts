import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Store } from '../../core/store/sqlStore.js';
import { VisitorSessionStore } from './visitorStore.js';
import { cookieSecret, newToken, readCookie, sign, unsign, writeCookie } from '../../core/http/cookies.js';

/**
 * Server-side visitor sessions: one row per browser (signed cookie → row), holding the visitor's
 * /assistant settings and the recent conversation threads of both chat surfaces, so that a page
 * rendered without JavaScript shows the same conversation as one driven by fetch.
 * No personal data: questions and answers only, kept for SESSION_TTL_DAYS after the last use.
 * What the settings are is the surface's: its composition root hands in their schema.
 * The rows are on the store port (visitorStore.ts): SQLite, or Postgres shared by every instance.
 */

export const VISITOR_COOKIE = 'palabre_sid';
const SESSION_TTL_MS = 30 * 24 * 3600_000;
/** Exchanges kept per thread: enough for the page and for CHAT_HISTORY_TURNS ≤ 20. */
export const MAX_THREAD = 20;

const sourceSchema = z.object({ path: z.string(), section: z.string(), href: z.string(), anchor: z.string(), lang: z.enum(['fr', 'en']).optional() });
const exchangeSchema = z.object({
  question: z.string(),
  answer: z.string(),
  state: z.enum(['answered', 'outOfScope', 'failed']),
  sources: z.array(sourceSchema),
  // Optional: threads saved before confidence and language existed still load.
  confidence: z.enum(['high', 'low']).optional(),
  lang: z.enum(['fr', 'en']).optional(),
  notice: z.string().optional(),
  provider: z.string(),
  model: z.string(),
  at: z.number(),
});
export type Exchange = z.infer<typeof exchangeSchema>;
export type ThreadName = 'assistant' | 'docs';
const threadsSchema = z.record(z.string(), z.array(exchangeSchema));

export interface VisitorSession<S extends object = Record<string, unknown>> {
  /** The raw session id (never stored: the row is keyed by its hash). */
  id: string;
  settings: S;
  threads: Partial<Record<ThreadName, Exchange[]>>;
}

function hashId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

function parseJson<T>(text: string, schema: z.ZodType<T>, fallback: T): T {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}

export interface VisitorSessionsOptions<S extends object> {
  /** The visitor's settings, validated on save and on load (an invalid saved value loads as `{}`). */
  settingsSchema: z.ZodType<S>;
  sessionSecret?: string;
  now?: () => number;
}

export class VisitorSessions<S extends object = Record<string, unknown>> {
  private readonly settingsSchema: z.ZodType<S>;
  private readonly secret: Buffer;
  private readonly now: () => number;
  private readonly rows: VisitorSessionStore;

  constructor(store: Store, opts: VisitorSessionsOptions<S>) {
    this.rows = new VisitorSessionStore(store);
    this.settingsSchema = opts.settingsSchema;
    this.secret = cookieSecret(opts.sessionSecret);
    this.now = opts.now ?? Date.now;
  }

  /** Settings are overrides: none is the schema's value of `{}` (a fresh object each time). */
  private noSettings(): S {
    return this.settingsSchema.parse({});
  }

  /** The browser's session, if its cookie is valid and the row alive. */
  async load(req: Pick<Request, 'headers'>): Promise<VisitorSession<S> | undefined> {
    const raw = readCookie(req, VISITOR_COOKIE);
    const id = raw ? unsign(this.secret, raw) : undefined;
    if (!id) return undefined;
    const row = await this.rows.find(hashId(id), this.now() - SESSION_TTL_MS);
    if (!row) return undefined;
    return {
      id,
      settings: parseJson(row.settings, this.settingsSchema, this.noSettings()),
      threads: parseJson(row.threads, threadsSchema, {}),
    };
  }

  /** The browser's session, created (row + cookie) when it has none. */
  async ensure(req: Pick<Request, 'headers' | 'secure'>, res: Pick<Response, 'append'>): Promise<VisitorSession<S>> {
    const existing = await this.load(req);
    if (existing) return existing;
    const t = this.now();
    await this.rows.purge(t - SESSION_TTL_MS);
    const id = newToken();
    await this.rows.insert(hashId(id), t);
    writeCookie(req, res, VISITOR_COOKIE, sign(this.secret, id), { sameSite: 'Lax', maxAgeS: SESSION_TTL_MS / 1000 });
    return { id, settings: this.noSettings(), threads: {} };
  }

  async saveSettings(session: VisitorSession<S>, settings: S): Promise<void> {
    session.settings = this.settingsSchema.parse(settings);
    await this.rows.setSettings(hashId(session.id), JSON.stringify(session.settings), this.now());
  }

  async resetSettings(session: VisitorSession<S>): Promise<void> {
    await this.saveSettings(session, this.noSettings());
  }

  async append(session: VisitorSession<S>, thread: ThreadName, exchange: Exchange): Promise<void> {
    const list = [...(session.threads[thread] ?? []), exchange].slice(-MAX_THREAD);
    session.threads[thread] = list;
    await this.rows.setThreads(hashId(session.id), JSON.stringify(session.threads), this.now());
  }

  async clearThread(session: VisitorSession<S>, thread: ThreadName): Promise<void> {
    delete session.threads[thread];
    await this.rows.setThreads(hashId(session.id), JSON.stringify(session.threads), this.now());
  }
}
