import { createRequire } from 'node:module';
import { pino, type Logger, type DestinationStream } from 'pino';
import type { PrettyOptions } from 'pino-pretty';

export type { Logger } from 'pino';

/**
 * Paths pino replaces with "[redacted]" wherever they appear in a log object. Secrets must never
 * reach a log line: keys, tokens, Authorization headers, cookies and passwords.
 */
const REDACT_PATHS = [
  'apiKey', '*.apiKey', 'api_key', '*.api_key', 'key', '*.key',
  'token', '*.token', 'jwt', '*.jwt', 'password', '*.password', 'secret', '*.secret',
  'authorization', '*.authorization', 'Authorization', '*.Authorization', '*.headers.authorization', '*.headers.Authorization',
  'req.headers.authorization', 'req.headers.Authorization', 'request.headers.authorization',
  'req.headers.cookie', 'headers["x-api-key"]', '*.headers["x-api-key"]',
  'headers["x-goog-api-key"]', '*.headers["x-goog-api-key"]', 'cookie', '*.cookie',
];

/** Query parameters whose value is a secret, in any URL palabre prints or logs. */
const SECRET_PARAMS = 'key|token|api_key|apikey|access_token|jwt|password|ticket';

/**
 * Tokens that may hide inside free text (URLs with a password or ?key=, ?token=, bearer strings,
 * JWTs, API keys).
 */
const TEXT_SECRETS: Array<[RegExp, string]> = [
  // Backslash excluded so that a match never eats the escape of a JSON-quoted character.
  [new RegExp(`([?&](?:${SECRET_PARAMS})=)[^&\\s"'\\\\]+`, 'gi'), '$1[redacted]'],
  // scheme://user:password@host — the password only.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/"'\\]*:)[^\s@/"'\\]+@/gi, '$1***@'],
  [/\b((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{6,}/gi, '$1[redacted]'],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g, '[redacted-jwt]'],
  [/\b(sk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,})/g, '[redacted-key]'],
];

/**
 * In a serialized JSON line: the value of any header- or key-like field, at any depth, and of any
 * configuration key named as a secret (`…_API_KEY`, `…_SECRET`, `…_PASSWORD`, `…_TOKEN`). The
 * configuration sections declare their secrets where they are defined; the logger is created
 * before any configuration is read, so it goes by the naming convention, which
 * test/core/log.test.ts holds every declared secret to (DATABASE_URL's password is a URL's, scrubbed above).
 */
const JSON_SECRET_FIELDS = /("(?:authorization|proxy-authorization|x-api-key|x-goog-api-key|api[-_]?key|cookie|set-cookie|[a-z0-9_]*_(?:api_key|secret|password|token))"\s*:\s*")((?:[^"\\]|\\.)*)"/gi;

/** Removes secrets embedded in a free-text string (error messages, URLs). */
export function redactText(text: string): string {
  let out = text;
  for (const [re, replacement] of TEXT_SECRETS) out = out.replace(re, replacement);
  return out;
}

/**
 * A URL as palabre prints or logs it (banner, log lines, doctor, error messages): its password
 * replaced by `***` and the values of secret query parameters by `[redacted]`; the user name, host,
 * port and path kept, so the reader still sees which server it is. The one function every
 * URL goes through: MQTT_URL, DATABASE_URL, the provider base URLs.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return redactText(url);
  }
  if (u.password) u.password = '***';
  // `http://host:8080`, not `http://host:8080/`: as the user wrote it.
  const out = url.endsWith('/') || u.pathname !== '/' ? u.toString() : u.toString().replace(/\/$/, '');
  return redactText(out);
}

/** Redacts a whole serialized log line: free-text secrets and header-like fields at any depth. */
export function redactLine(line: string): string {
  return redactText(line).replace(JSON_SECRET_FIELDS, (_m, head: string, value: string) => (value === '[redacted]' ? `${head}${value}"` : `${head}[redacted]"`));
}

export interface LogOptions {
  level?: string;
  /** A file path (JSON lines appended) or a stream; default stdout. */
  destination?: string | DestinationStream;
  name?: string;
  /**
   * LOG_FORMAT: `json` (default here), `pretty`, or `auto` = pretty when stdout is a terminal.
   * Applies to stdout only: a file or a given stream always gets JSON lines.
   */
  format?: LogFormatSetting;
}

export type LogFormatSetting = 'auto' | 'json' | 'pretty';

/**
 * What the logs look like on stdout: short coloured lines for a person at a terminal, JSON lines
 * for pipelines, services and files (LOG_FORMAT forces either).
 */
export function chooseLogFormat(isTTY: boolean, setting: LogFormatSetting): 'json' | 'pretty' {
  if (setting === 'auto') return isTTY ? 'pretty' : 'json';
  return setting;
}

/**
 * Fields left out of a human line: process identity, and what the start banner already printed.
 * `surface` leads the message instead (see messageFormat).
 */
const PRETTY_IGNORE = 'pid,hostname,name,surface,urls,providers,timings';

/**
 * pino-pretty as a stream in this thread (not a worker transport): lines are written in order with
 * the banner, and nothing is lost when the process exits. Loaded only when asked for, so that
 * `palabre skull` writing JSON on a Pi never loads it.
 */
function prettyStream(colorize: boolean): DestinationStream {
  const require = createRequire(import.meta.url);
  const pretty = require('pino-pretty') as (opts: PrettyOptions) => DestinationStream;
  return pretty({
    colorize,
    destination: 1,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: PRETTY_IGNORE,
    messageFormat: '{if surface}{surface} · {end}{msg}',
  });
}

/**
 * pino JSON lines. Two layers keep secrets out: `redact` paths for known fields (fast, structural),
 * then the `streamWrite` hook scrubs the serialized line, which also covers messages, error
 * stacks and free-text fields at any depth (e.g. a provider error quoting a URL with ?key=).
 */
export function createLogger(opts: LogOptions = {}): Logger {
  const isTTY = process.stdout.isTTY === true;
  const pretty = opts.destination === undefined && chooseLogFormat(isTTY, opts.format ?? 'json') === 'pretty';
  const destination =
    typeof opts.destination === 'string'
      ? // Readable by its owner only: a log line may quote what a candidate said or an admin did.
        pino.destination({ dest: opts.destination, mkdir: true, sync: false, mode: 0o600 })
      : opts.destination ?? (pretty ? prettyStream(isTTY) : pino.destination({ dest: 1, sync: false }));
  return pino(
    {
      name: opts.name ?? 'palabre',
      level: opts.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: { streamWrite: redactLine },
    },
    destination,
  );
}

/** A logger that writes nothing, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
