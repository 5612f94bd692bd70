import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, createAuth, DEV_SECRET_FILE, principalOf, requireFeature } from '../../core/auth.js';
import { run as tokenCommand } from '../../cli/commands/tokenCommand.js';

const SECRET = 'test-secret-0123456789abcdef';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

describe('core/auth HS256', () => {
  const auth = createAuth({ JWT_SECRET: SECRET, DATA_DIR: '/nonexistent' });

  it('mints and verifies; plan → features (premium grants oral_t2_live)', async () => {
    const free = await auth.verifyToken(await auth.mintToken({ sub: 'cand-1', plan: 'free' }));
    expect(free).toEqual({ sub: 'cand-1', plan: 'free', features: ['corrections'] });
    expect(() => requireFeature(free, 'oral_t2_live')).toThrow(AuthError);
    const premium = await auth.verifyToken(await auth.mintToken({ sub: 'cand-2', plan: 'premium' }));
    expect(premium.features).toContain('oral_t2_live');
    expect(() => requireFeature(premium, 'oral_t2_live')).not.toThrow();
  });

  it('rejects missing, tampered, wrong-secret, expired, alg=none and claim-less tokens with typed errors', async () => {
    await expect(auth.verifyToken(undefined)).rejects.toMatchObject({ code: 'missing_token', status: 401 });
    const good = await auth.mintToken({ sub: 'x', plan: 'free' });
    const [h, p, s] = good.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'x', plan: 'premium' })).toString('base64url')}.${s}`;
    void p;
    await expect(auth.verifyToken(forged)).rejects.toMatchObject({ code: 'invalid_token' });
    const other = createAuth({ JWT_SECRET: 'another-secret-0123456789', DATA_DIR: '/x' });
    await expect(auth.verifyToken(await other.mintToken({ sub: 'x', plan: 'free' }))).rejects.toMatchObject({ code: 'invalid_token' });
    const expired = await new SignJWT({ plan: 'free' }).setProtectedHeader({ alg: 'HS256' }).setSubject('x').setExpirationTime(Math.floor(Date.now() / 1000) - 60).sign(new TextEncoder().encode(SECRET));
    await expect(auth.verifyToken(expired)).rejects.toMatchObject({ code: 'expired_token' });
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x","plan":"premium"}').toString('base64url')}.`;
    await expect(auth.verifyToken(none)).rejects.toMatchObject({ code: 'invalid_token' });
    const hs384 = await new SignJWT({ plan: 'free' }).setProtectedHeader({ alg: 'HS384' }).setSubject('x').sign(new TextEncoder().encode(SECRET));
    await expect(auth.verifyToken(hs384)).rejects.toMatchObject({ code: 'invalid_token' });
    const noPlan = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('x').sign(new TextEncoder().encode(SECRET));
    await expect(auth.verifyToken(noPlan)).rejects.toMatchObject({ code: 'bad_claims' });
    const badPlan = await new SignJWT({ plan: 'gold' }).setProtectedHeader({ alg: 'HS256' }).setSubject('x').sign(new TextEncoder().encode(SECRET));
    await expect(auth.verifyToken(badPlan)).rejects.toMatchObject({ code: 'bad_claims' });
  });

  it('refuses a correctly signed token without `exp` (it would never expire)', async () => {
    const key = new TextEncoder().encode(SECRET);
    const forever = await new SignJWT({ plan: 'premium' }).setProtectedHeader({ alg: 'HS256' }).setSubject('x').setIssuedAt().sign(key);
    await expect(auth.verifyToken(forever)).rejects.toMatchObject({ code: 'bad_claims', status: 401 });
  });

  it('caps a token lifetime at JWT_MAX_TTL_S (default 12 h), with or without `iat`, and never mints above it', async () => {
    const key = new TextEncoder().encode(SECRET);
    const nowS = Math.floor(Date.now() / 1000);
    const sign = (exp: number, iat?: number) => {
      const jwt = new SignJWT({ plan: 'free' }).setProtectedHeader({ alg: 'HS256' }).setSubject('x').setExpirationTime(exp);
      if (iat !== undefined) jwt.setIssuedAt(iat);
      return jwt.sign(key);
    };
    expect((await auth.verifyToken(await sign(nowS + 12 * 3600, nowS))).sub).toBe('x');
    await expect(auth.verifyToken(await sign(nowS + 13 * 3600, nowS))).rejects.toMatchObject({ code: 'bad_claims' });
    await expect(auth.verifyToken(await sign(nowS + 365 * 86400))).rejects.toMatchObject({ code: 'bad_claims' });
    // An `iat` back-dated does not help: the lifetime counts from it.
    await expect(auth.verifyToken(await sign(nowS + 3600, nowS - 20 * 3600))).rejects.toMatchObject({ code: 'bad_claims' });
    const short = createAuth({ JWT_SECRET: SECRET, JWT_MAX_TTL_S: 600, DATA_DIR: '/x' });
    await expect(short.verifyToken(await sign(nowS + 3600, nowS))).rejects.toMatchObject({ code: 'bad_claims' });
    await expect(short.mintToken({ sub: 'x', plan: 'free', ttl: '1h' })).rejects.toMatchObject({ code: 'bad_claims' });
    expect((await short.verifyToken(await short.mintToken({ sub: 'x', plan: 'free', ttl: '5m' }))).sub).toBe('x');
  });

  it('checks the issuer when JWT_ISSUER is set', async () => {
    const withIss = createAuth({ JWT_SECRET: SECRET, JWT_ISSUER: 'palabre', DATA_DIR: '/x' });
    expect((await withIss.verifyToken(await withIss.mintToken({ sub: 'a', plan: 'free' }))).sub).toBe('a');
    await expect(withIss.verifyToken(await auth.mintToken({ sub: 'a', plan: 'free' }))).rejects.toMatchObject({ code: 'bad_claims' });
  });
});

describe('core/auth dev secret and `palabre token`', () => {
  it('generates the dev secret once (mode 0600) and the CLI mints what the server accepts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-auth-'));
    const a = createAuth({ DATA_DIR: dir });
    const file = join(dir, DEV_SECRET_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = readFileSync(file, 'utf8');
    let printed = '';
    const code = await tokenCommand(['--sub', 'cand-9', '--plan', 'premium'], { env: { DATA_DIR: dir }, stdout: { write: (s: string) => (printed += s) }, stderr: { write: () => true } });
    expect(code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(await a.verifyToken(printed.trim())).toMatchObject({ sub: 'cand-9', plan: 'premium' });
    let err = '';
    expect(await tokenCommand(['--plan', 'gold', '--sub', 'x'], { env: { DATA_DIR: dir }, stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } })).toBe(2);
    expect(err).toMatch(/free or premium/);
    expect(await tokenCommand(['--plan', 'free'], { env: { DATA_DIR: dir }, stderr: { write: () => true } })).toBe(2);
  });
});

describe('core/auth JWKS and middleware', () => {
  let jwksServer: Server;
  let jwksUrl: string;
  let privateKey: CryptoKey;
  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwksServer = createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ keys: [jwk] })); });
    jwksUrl = `${await listen(jwksServer)}/jwks.json`;
  });
  afterAll(() => new Promise<void>((r) => jwksServer.close(() => r())));

  it('verifies RS256 tokens from a JWKS URL and refuses to mint', async () => {
    const auth = createAuth({ JWT_JWKS_URL: jwksUrl, DATA_DIR: '/x' });
    const token = await new SignJWT({ plan: 'premium' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setSubject('c-7').setExpirationTime('1h').sign(privateKey);
    expect(await auth.verifyToken(token)).toMatchObject({ sub: 'c-7', plan: 'premium' });
    // An HS256 token must not pass a JWKS verifier (algorithm pinned).
    const hs = await createAuth({ JWT_SECRET: SECRET, DATA_DIR: '/x' }).mintToken({ sub: 'c', plan: 'premium' });
    await expect(auth.verifyToken(hs)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(auth.mintToken({ sub: 'a', plan: 'free' })).rejects.toMatchObject({ code: 'cannot_mint' });
  });

  it('middleware: 401 without/with a bad token, 403 for a missing feature, principal otherwise', async () => {
    const auth = createAuth({ JWT_SECRET: SECRET, DATA_DIR: '/x' });
    const app = express();
    app.get('/me', auth.middleware(), (_req, res) => { res.json(principalOf(res)); });
    app.get('/live', auth.middleware({ feature: 'oral_t2_live' }), (_req, res) => { res.json({ ok: true }); });
    const server = createServer(app);
    const base = await listen(server);
    try {
      const none = await fetch(`${base}/me`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect(await none.json()).toMatchObject({ error: 'missing_token' });
      expect((await fetch(`${base}/me`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      const free = await auth.mintToken({ sub: 'c1', plan: 'free' });
      const me = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${free}` } });
      expect(await me.json()).toEqual({ sub: 'c1', plan: 'free', features: ['corrections'] });
      expect((await fetch(`${base}/live`, { headers: { authorization: `Bearer ${free}` } })).status).toBe(403);
      const premium = await auth.mintToken({ sub: 'c1', plan: 'premium' });
      expect((await fetch(`${base}/live`, { headers: { authorization: `Bearer ${premium}` } })).status).toBe(200);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
