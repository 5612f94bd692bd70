import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { SignJWT, createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { Logger } from './log.js';

/**
 * Candidate authentication: `Authorization: Bearer <JWT>` (HTTP) or `?token=` (the T2 WebSocket).
 * Tokens are verified with an HS256 secret (JWT_SECRET, or a development secret generated once in
 * DATA_DIR) or against a JWKS URL (JWT_JWKS_URL). The algorithm list is pinned per mode so a token
 * can never pick its own algorithm (no `none`, no HS256-with-a-public-key confusion).
 * `sub` is the candidate id; the `plan` claim (free | premium) decides the features.
 */

export const PLANS = ['free', 'premium'] as const;
export type Plan = (typeof PLANS)[number];
export type Feature = 'corrections' | 'oral_t2_live';

/** What each plan grants. `premium` is the only plan with the T2 live oral (docs/t2-live.md § The candidate's pages). */
const PLAN_FEATURES: Readonly<Record<Plan, readonly Feature[]>> = {
  free: ['corrections'],
  premium: ['corrections', 'oral_t2_live'],
};

export interface Principal {
  sub: string;
  plan: Plan;
  features: Feature[];
}

export type AuthErrorCode = 'missing_token' | 'invalid_token' | 'expired_token' | 'bad_claims' | 'plan_insufficient' | 'cannot_mint';

/** Typed failure: `status` is what an HTTP edge answers (401 for identity, 403 for plan). */
export class AuthError extends Error {
  readonly code: AuthErrorCode;
  readonly status: 401 | 403 | 500;
  constructor(code: AuthErrorCode, message: string) {
    super(message);
    this.name = 'AuthError';
    this.code = code;
    this.status = code === 'plan_insufficient' ? 403 : code === 'cannot_mint' ? 500 : 401;
  }
}

/** The configuration keys auth reads (all in the core section). */
export interface AuthConfig {
  JWT_SECRET?: string | undefined;
  JWT_JWKS_URL?: string | undefined;
  JWT_ISSUER?: string | undefined;
  /** Longest lifetime accepted (`exp` − `iat`, or `exp` − now without `iat`); default 12 h. */
  JWT_MAX_TTL_S?: number | undefined;
  DATA_DIR: string;
}

const DEFAULT_MAX_TTL_S = 12 * 3600;

const HS_ALGORITHMS = ['HS256'] as const;
const JWKS_ALGORITHMS = ['RS256', 'ES256'] as const;
export const DEV_SECRET_FILE = 'jwt-dev-secret';
const AUDIENCE_FREE_CLOCK_TOLERANCE_S = 5;

const claimsSchema = z.object({
  sub: z.string().min(1).max(200),
  plan: z.enum(PLANS),
});

export interface Authenticator {
  readonly mode: 'hs256' | 'jwks';
  verifyToken(token: string | undefined | null): Promise<Principal>;
  /** Development tokens; only in HS256 mode (a JWKS verifier holds no private key). */
  mintToken(opts: { sub: string; plan: Plan; ttl?: string | number }): Promise<string>;
  /** Express middleware: 401 JSON without a valid bearer token; `res.locals.principal` otherwise. */
  middleware(opts?: { feature?: Feature }): RequestHandler;
}

function featuresOf(plan: Plan): Feature[] {
  return [...PLAN_FEATURES[plan]];
}

/** Throws `plan_insufficient` unless the principal's plan grants the feature. */
export function requireFeature(principal: Principal, feature: Feature): void {
  if (!principal.features.includes(feature)) {
    throw new AuthError('plan_insufficient', `plan ${principal.plan} does not include ${feature}`);
  }
}

/**
 * Reads DATA_DIR/jwt-dev-secret, creating it (mode 0600) on first use. Shared by every process
 * that uses the same DATA_DIR, so `palabre token` mints what `palabre serve` accepts.
 */
function loadDevSecret(dataDir: string, logger?: Logger): Uint8Array {
  const path = join(dataDir, DEV_SECRET_FILE);
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(path, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
      logger?.warn({ path }, 'JWT_SECRET unset: generated a development secret (do not use in production)');
    } catch (err) {
      // Another process created it between our check and our write: read theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } else {
    logger?.info({ path }, 'JWT_SECRET unset: using the development secret in DATA_DIR');
  }
  chmodSync(path, 0o600);
  const text = readFileSync(path, 'utf8').trim();
  if (text.length < 16) throw new Error(`${path}: development secret too short; delete the file to regenerate it`);
  return new TextEncoder().encode(text);
}

/** The token of an `Authorization: Bearer <token>` header, if it has that form. */
export function extractBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/** `exp` − `iat` of a token this process just signed. */
function decodeLifetime(token: string): number {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: number; iat?: number };
  return (payload.exp ?? 0) - (payload.iat ?? 0);
}

function toAuthError(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  if (err instanceof joseErrors.JWTExpired) return new AuthError('expired_token', 'token expired');
  if (err instanceof joseErrors.JWTClaimValidationFailed) return new AuthError('bad_claims', `token claim rejected: ${err.claim}`);
  // Every other jose error (bad signature, wrong algorithm, malformed, JWKS unreachable) is 401.
  return new AuthError('invalid_token', 'token invalid');
}

export function createAuth(config: AuthConfig, opts: { logger?: Logger } = {}): Authenticator {
  let key: Uint8Array | JWTVerifyGetKey;
  let algorithms: string[];
  let mode: 'hs256' | 'jwks';
  if (config.JWT_JWKS_URL) {
    mode = 'jwks';
    key = createRemoteJWKSet(new URL(config.JWT_JWKS_URL));
    algorithms = [...JWKS_ALGORITHMS];
  } else {
    mode = 'hs256';
    key = config.JWT_SECRET ? new TextEncoder().encode(config.JWT_SECRET) : loadDevSecret(config.DATA_DIR, opts.logger);
    algorithms = [...HS_ALGORITHMS];
  }

  const maxTtlS = config.JWT_MAX_TTL_S ?? DEFAULT_MAX_TTL_S;
  const nowS = (): number => Math.floor(Date.now() / 1000);

  async function verifyToken(token: string | undefined | null): Promise<Principal> {
    if (!token) throw new AuthError('missing_token', 'missing bearer token');
    let payload: JWTPayload;
    try {
      const verifyOpts = {
        algorithms,
        clockTolerance: AUDIENCE_FREE_CLOCK_TOLERANCE_S,
        // A signed token without `exp` would never expire: refused (jose: JWTClaimValidationFailed).
        requiredClaims: ['exp'],
        ...(config.JWT_ISSUER ? { issuer: config.JWT_ISSUER } : {}),
      };
      const result = typeof key === 'function' ? await jwtVerify(token, key, verifyOpts) : await jwtVerify(token, key, verifyOpts);
      payload = result.payload;
    } catch (err) {
      throw toAuthError(err);
    }
    // A leaked long-lived token is a standing key: the lifetime is capped whatever the issuer put.
    const exp = payload.exp!;
    const from = typeof payload.iat === 'number' ? Math.min(payload.iat, nowS()) : nowS();
    if (exp - from > maxTtlS + AUDIENCE_FREE_CLOCK_TOLERANCE_S) {
      throw new AuthError('bad_claims', `token lifetime above JWT_MAX_TTL_S (${maxTtlS} s): ask for a shorter-lived token`);
    }
    const claims = claimsSchema.safeParse(payload);
    if (!claims.success) throw new AuthError('bad_claims', 'token needs `sub` and `plan` (free|premium)');
    return { sub: claims.data.sub, plan: claims.data.plan, features: featuresOf(claims.data.plan) };
  }

  async function mintToken({ sub, plan, ttl = '12h' }: { sub: string; plan: Plan; ttl?: string | number }): Promise<string> {
    if (typeof key === 'function') throw new AuthError('cannot_mint', 'JWT_JWKS_URL is set: tokens come from your identity provider');
    const parsed = claimsSchema.safeParse({ sub, plan });
    if (!parsed.success) throw new AuthError('bad_claims', 'sub must be a non-empty id and plan free|premium');
    const jwt = new SignJWT({ plan }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(sub).setIssuedAt().setExpirationTime(ttl);
    // Checked on the built token (ttl may be '12h' or seconds): never mint what verify would refuse.
    if (config.JWT_ISSUER) jwt.setIssuer(config.JWT_ISSUER);
    const token = await jwt.sign(key);
    // jose stamps `iat` and `exp` from two reads of the clock: across a second boundary the
    // lifetime reads one second longer than asked (a '12h' token failed under a 12 h cap).
    if (decodeLifetime(token) > maxTtlS + 1) throw new AuthError('bad_claims', `ttl ${String(ttl)} is above JWT_MAX_TTL_S (${maxTtlS} s): use a shorter --ttl`);
    return token;
  }

  function middleware(mw: { feature?: Feature } = {}): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      verifyToken(extractBearer(req.headers.authorization))
        .then((principal) => {
          if (mw.feature) requireFeature(principal, mw.feature);
          res.locals.principal = principal;
          next();
        })
        .catch((err: unknown) => {
          const e = toAuthError(err);
          if (e.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
          res.status(e.status).json({ error: e.code, message: e.message });
        });
    };
  }

  return { mode, verifyToken, mintToken, middleware };
}

/** The principal the middleware stored on this response. */
export function principalOf(res: Response): Principal {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new AuthError('missing_token', 'route reached without the auth middleware');
  return p;
}

