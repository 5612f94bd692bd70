import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino replaces with "[redacted]" wherever they appear in a log object. Secrets must never
 * reach a log line: keys, tokens, Authorization headers, cookies and passwords.
 */
export const REDACT_PATHS = [
  'apiKey', '*.apiKey', 'api_key', '*.api_key', 'key', '*.key',
  'token', '*.token', 'jwt', '*.jwt', 'password', '*.password', 'secret', '*.secret',
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'req.headers.authorization', 'req.headers.cookie', 'headers["x-api-key"]', '*.headers["x-api-key"]',
  'headers["x-goog-api-key"]', '*.headers["x-goog-api-key"]', 'cookie', '*.cookie',
  'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'JWT_SECRET', 'SESSION_SECRET', 'ADMIN_PASSWORD',
  '*.OPENAI_API_KEY', '*.ANTHROPIC_API_KEY', '*.GEMINI_API_KEY', '*.JWT_SECRET', '*.SESSION_SECRET', '*.ADMIN_PASSWORD',
];

/** Tokens that may hide inside free text (URLs with ?key=, ?token=, bearer strings, JWTs). */
const TEXT_SECRETS: Array<[RegExp, string]> = [
  [/([?&](?:key|token|api_key|access_token)=)[^&\s"']+/gi, '$1[redacted]'],
  [/(Bearer\s+)[A-Za-z0-9._~+/=-]+/g, '$1[redacted]'],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g, '[redacted-jwt]'],
  [/\b(sk-(?:ant-)?[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,})/g, '[redacted-key]'],
];

/** Removes secrets embedded in a free-text string (error messages, URLs). */
export function redactText(text: string): string {
  let out = text;
  for (const [re, replacement] of TEXT_SECRETS) out = out.replace(re, replacement);
  return out;
}

export interface LogOptions {
  level?: string;
  /** A file path (JSON lines appended) or a stream; default stdout. */
  destination?: string | DestinationStream;
  name?: string;
}

export function createLogger(opts: LogOptions = {}): Logger {
  const destination =
    typeof opts.destination === 'string'
      ? pino.destination({ dest: opts.destination, mkdir: true, sync: false })
      : opts.destination ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      name: opts.name ?? 'palabre',
      level: opts.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: {
        log(object) {
          // Error messages and URLs can carry keys (e.g. Gemini's ?key=): scrub free text too.
          if (typeof object.msg === 'string') object.msg = redactText(object.msg);
          const err = object.err as { message?: unknown; stack?: unknown } | undefined;
          if (err && typeof err === 'object') {
            if (typeof err.message === 'string') err.message = redactText(err.message);
            if (typeof err.stack === 'string') err.stack = redactText(err.stack);
          }
          if (typeof object.url === 'string') object.url = redactText(object.url);
          return object;
        },
      },
      hooks: {
        logMethod(args, method) {
          const redacted = args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as typeof args;
          method.apply(this, redacted);
        },
      },
    },
    destination,
  );
}

/** A logger that writes nothing, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
