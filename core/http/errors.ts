import { STATUS_CODES } from 'node:http';
import type { Request } from 'express';

/** Does this request want a page (a browser), rather than JSON (/api, fetch with Accept: json)? */
export function wantsPage(req: Request): boolean {
  if (req.path === '/api' || req.path.startsWith('/api/')) return false;
  return req.accepts(['html', 'json']) === 'html';
}

/** Status of a thrown error (http-errors, body parsers), 500 when it has none. */
export function errorStatus(err: unknown): number {
  const e = (err ?? {}) as { status?: unknown; statusCode?: unknown };
  const raw = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
  return raw >= 400 && raw < 600 ? raw : 500;
}

/** 4xx from body parsers and http-errors carry a message meant for the client; 5xx never do. */
export function errorMessage(err: unknown, status: number): string {
  const e = (err ?? {}) as { expose?: unknown; message?: unknown };
  return status < 500 && e.expose === true && typeof e.message === 'string' ? e.message : STATUS_CODES[status] ?? 'error';
}
