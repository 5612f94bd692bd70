#!/usr/bin/env node
// Brings palabre's offline engines into the user's cache folder, where the machine allows it:
// Grammalecte's Python core (corrections) and the dictionaries of the docs assistant, both from
// Debian packages fetched with `apt-get download` (no root needed, nothing installed system-wide).
// Run by `npm install` (postinstall) and by `npm run engines:install`. It never fails the install:
// an engine it cannot bring is reported with the one command that adds it later, and `npm start`
// and `palabre doctor` say the same. Plain JavaScript: it runs before the TypeScript build, and
// without the dev dependencies.
//   PALABRE_SKIP_ENGINES=1 npm install   skips it (e.g. an image that installs the engines itself)
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** An installer that takes longer (a stalled mirror) is stopped: npm install must end. */
const TIMEOUT_MS = Number(process.env.PALABRE_ENGINES_TIMEOUT_MS) || 5 * 60_000;

// The same rule as core/cacheDir.ts (this file cannot import TypeScript).
function cacheDir(env) {
  if (env.PALABRE_CACHE_DIR) return env.PALABRE_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache'), 'palabre');
}

const ENGINES = [
  { name: 'Grammalecte (French grammar checker for corrections)', script: 'actors/corrections/grammalecte/install.sh', command: 'npm run grammalecte:install', sub: 'grammalecte' },
  { name: 'dictionaries (query expansion of the docs assistant)', script: 'actors/retrieval/lexicons/install.sh', command: 'npm run lexicons:install', sub: 'lexicons' },
];

const say = (line) => process.stdout.write(`palabre: ${line}\n`);

/** Runs one installer; resolves with its exit code (or a reason), its last lines kept for the summary. */
function runInstaller(script, env) {
  return new Promise((resolve) => {
    let tail = '';
    const keep = (chunk) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-2000);
      for (const line of text.split('\n')) if (line.trim()) say(`  ${line.trim()}`);
    };
    let child;
    try {
      child = spawn('bash', [join(ROOT, script)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ ok: false, why: err instanceof Error ? err.message : String(err) });
      return;
    }
    const timer = setTimeout(() => child.kill('SIGTERM'), TIMEOUT_MS);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, why: err.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = tail.trim().split('\n').at(-1) ?? '';
      if (code === 0) resolve({ ok: true, why: last });
      else resolve({ ok: false, why: signal ? `stopped after ${TIMEOUT_MS / 1000} s (${signal})` : last || `exit ${code}` });
    });
  });
}

async function main() {
  if (process.env.PALABRE_SKIP_ENGINES === '1' || process.env.PALABRE_SKIP_ENGINES === 'true') {
    say('PALABRE_SKIP_ENGINES set: offline engines not installed (npm run engines:install adds them)');
    return;
  }
  if (process.platform === 'win32') {
    say('offline engines are installed from Debian packages: not on Windows; corrections and the docs assistant run without them');
    return;
  }
  const dir = cacheDir(process.env);
  say(`offline engines → ${dir}`);
  const missing = [];
  for (const engine of ENGINES) {
    say(`${engine.name}…`);
    const r = await runInstaller(engine.script, { ...process.env, PALABRE_CACHE_DIR: dir });
    if (r.ok) continue;
    missing.push(engine);
    say(`${engine.name} not installed: ${r.why}`);
  }
  if (missing.length === 0) {
    say(`offline engines ready in ${dir}`);
    return;
  }
  // Said once more at the end, where npm's output stops: what is missing and the command that adds it.
  say('palabre runs without what is missing (corrections with the built-in detectors alone, the assistant without query expansion).');
  for (const engine of missing) say(`  to add ${engine.sub} later: ${engine.command}   (needs apt-get; \`palabre doctor\` checks it)`);
}

main().catch((err) => say(`offline engines not installed: ${err instanceof Error ? err.message : String(err)} (npm run engines:install retries)`)).finally(() => {
  process.exitCode = 0;
});
