import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * Signed cookies for the admin and visitor sessions. A cookie holds `<id>.<hmac>`; the id is a
 * random 32-byte token whose row lives in SQLite, the HMAC (SESSION_SECRET, or a random secret per
 * process when unset) lets us reject a forged or truncated cookie before touching the store.
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

function mac(secret: Buffer, value: string): string {
  return createHmac('sha256', secret).update(value).digest('base64url');
}

export function sign(secret: Buffer, value: string): string {
  return `${value}.${mac(secret, value)}`;
}

/** The signed value, or undefined if the signature does not match. */
export function unsign(secret: Buffer, signed: string): string | undefined {
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const value = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  const expected = Buffer.from(mac(secret, value));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return value;
}

export function safeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** Parses the Cookie header (no dependency: names and values are our own, URL-encoded). */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface CookieOptions {
  maxAgeS?: number;
  path?: string;
  sameSite?: 'Strict' | 'Lax';
}

export function writeCookie(req: Request, res: Response, name: string, value: string, opts: CookieOptions = {}): void {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${opts.path ?? '/'}`,
    'HttpOnly',
    `SameSite=${opts.sameSite ?? 'Lax'}`,
  ];
  if (opts.maxAgeS !== undefined) parts.push(`Max-Age=${opts.maxAgeS}`);
  if (req.secure) parts.push('Secure');
  res.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(req: Request, res: Response, name: string, path = '/'): void {
  writeCookie(req, res, name, '', { maxAgeS: 0, path });
}
