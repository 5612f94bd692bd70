import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../core/config/index.js';
import { createLogger } from '../../core/log.js';
import { createMetrics } from '../../core/metrics.js';
import { createDocsAssistant } from '../../actors/docs/assistant.js';
import { createProviders } from '../../actors/llm/providers.js';
import { EXIT, processIo, type CliIo } from '../io.js';

const USAGE = `usage: palabre ask "question" [--k N] [--threshold X] [--json]
Answers from the docs (CORPUS_DIR, default docs/) with sources; streams the answer as it comes.`;

/** `palabre ask "…"`: one question to the docs assistant in the terminal. Exit 0 answered, 3 out of scope, 1 failed. */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  let values: { k?: string; threshold?: string; json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: { k: { type: 'string' }, threshold: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  const question = positionals.join(' ').trim();
  if (values.help || !question) {
    (values.help ? io.stdout : io.stderr).write(`${USAGE}\n`);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  let config;
  try {
    config = loadConfig({ env: { ...io.env, ...(values.k ? { CHAT_TOP_K: values.k } : {}), ...(values.threshold ? { CHAT_SCORE_THRESHOLD: values.threshold } : {}) } });
  } catch (e) {
    io.stderr.write(`${e instanceof ConfigError ? e.message : String(e)}\n`);
    return EXIT.usage;
  }
  // Warnings go to stderr so that stdout carries only the answer.
  const logger = createLogger({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, destination: pino.destination({ dest: 2, sync: true }) });
  const providers = createProviders(config, { logger, metrics: createMetrics({ defaults: false }) });
  const assistant = createDocsAssistant({ config, providers, logger });
  await assistant.ready();
  const streamed = !values.json;
  const answer = await assistant.ask({ question, settings: assistant.defaults(), ...(streamed ? { onDelta: (t: string) => io.stdout.write(t) } : {}) });
  if (values.json) {
    io.stdout.write(`${JSON.stringify(answer)}\n`);
  } else {
    // Out-of-scope and failed answers are not streamed (no model call): print them whole.
    if (answer.state !== 'answered') io.stdout.write(answer.answer);
    io.stdout.write('\n');
    if (answer.sources.length > 0) {
      io.stdout.write('\nSources :\n');
      for (const s of answer.sources) io.stdout.write(`  - ${s.path} › ${s.section}\n`);
    }
    io.stdout.write(`\n(${answer.provider}${answer.provider === 'offline' ? ' : réponse extractive, aucun modèle appelé' : ''})\n`);
  }
  return answer.state === 'answered' ? EXIT.ok : answer.state === 'outOfScope' ? 3 : EXIT.failure;
}
