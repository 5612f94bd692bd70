import { randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import { sign as signValue, unsign as unsignValue } from 'cookie-signature';
import type { Request, Response } from 'express';

/**
 * Signed cookies for the admin and visitor sessions. A cookie holds `<id>.<hmac>`
 * (`cookie-signature`, the format express and express-session use); the id is a random 32-byte
 * token whose row lives in SQLite, the HMAC (SESSION_SECRET, or a random secret per process when
 * unset) lets us reject a forged or truncated cookie before touching the store. Parsing and
 * serialization are the `cookie` package's.
 */

let processSecret: Buffer | undefined;

export function cookieSecret(configured?: string): Buffer {
  if (configured) return Buffer.from(configured, 'utf8');
  processSecret ??= randomBytes(32);
  return processSecret;
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sign(secret: Buffer, value: string): string {
  return signValue(value, secret);
}

/** The signed value, or undefined if the signature does not match (constant-time check). */
export function unsign(secret: Buffer, signed: string): string | undefined {
  const value = unsignValue(signed, secret);
  return value === false ? undefined : value;
}

export function safeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** One cookie of the request (a malformed percent-encoding yields the raw value, never a throw). */
export function readCookie(req: Pick<Request, 'headers'>, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parseCookies(header)[name];
}

export interface CookieOptions {
  maxAgeS?: number;
  path?: string;
  sameSite?: 'Strict' | 'Lax';
}

export function writeCookie(req: Pick<Request, 'secure'>, res: Pick<Response, 'append'>, name: string, value: string, opts: CookieOptions = {}): void {
  res.append(
    'Set-Cookie',
    serializeCookie(name, value, {
      path: opts.path ?? '/',
      httpOnly: true,
      sameSite: opts.sameSite === 'Strict' ? 'strict' : 'lax',
      ...(opts.maxAgeS !== undefined ? { maxAge: opts.maxAgeS } : {}),
      secure: req.secure,
    }),
  );
}

export function clearCookie(req: Pick<Request, 'secure'>, res: Pick<Response, 'append'>, name: string, path = '/'): void {
  writeCookie(req, res, name, '', { maxAgeS: 0, path });
}
