import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { createDocsAssistant } from '../../actors/docs/assistant.js';
import { createProviders } from '../../actors/llm/providers.js';
import { createLogger } from '../../core/log.js';
import { createMetrics } from '../../core/metrics.js';
import { loadConfigOrExit } from '../configArgs.js';
import { chooseCorpus } from '../corpusChoice.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';
import { parseCommand, usageError } from '../parse.js';

/** The labels around an answer, in the answer's language (the question's). */
const ASK_LABELS = {
  fr: { sources: 'Sources :', offline: ' : réponse extractive, aucun modèle appelé', final: 'Réponse, numérotée comme les sources :' },
  en: { sources: 'Sources:', offline: ': extractive answer, no model called', final: 'Answer, numbered like the sources:' },
} as const;

/** `palabre ask "…"`: one question to the docs assistant in the terminal. Exit codes: cli/definitions.ts. */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = parseCommand('ask', args, io);
  if ('exit' in parsed) return parsed.exit;
  const question = parsed.positionals.join(' ').trim();
  if (!question) return usageError('ask', io, 'no question given');
  const k = parsed.string('k');
  const threshold = parsed.string('threshold');
  // --k and --threshold go through the config schema: the same validation and messages as the variables.
  const loaded = loadConfigOrExit(io, { env: { ...io.env, ...(k ? { CHAT_TOP_K: k } : {}), ...(threshold ? { CHAT_SCORE_THRESHOLD: threshold } : {}) } });
  if ('exit' in loaded) return loaded.exit;
  const corpus = parsed.string('corpus');
  const choice = chooseCorpus(loaded.config, { ...(corpus ? { flag: corpus } : {}), load: { env: io.env } });
  if (choice.note) io.stderr.write(`${choice.note}\n`);
  // A mistyped folder would otherwise index nothing and refuse every question (exit 3): say so.
  if (!statSync(choice.dir, { throwIfNoEntry: false })?.isDirectory()) {
    return usageError('ask', io, `the corpus ${resolve(choice.dir)} is not a folder (${choice.source === 'flag' ? '--corpus' : 'CORPUS_DIR'}); give a folder of Markdown, MDX or text files`);
  }
  const config = { ...loaded.config, CORPUS_DIR: choice.dir };
  // Warnings go to stderr so that stdout carries only the answer.
  const logger = createLogger({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, destination: pino.destination({ dest: 2, sync: true }) });
  const providers = createProviders(config, { logger, metrics: createMetrics({ defaults: false }) });
  const assistant = createDocsAssistant({ config, providers, logger });
  await assistant.ready();
  const json = parsed.flag('json');
  let streamed = '';
  const onDelta = (t: string): void => {
    streamed += t;
    io.stdout.write(t);
  };
  const answer = await assistant.ask({ question, settings: assistant.defaults(), ...(json ? {} : { onDelta }) });
  if (json) {
    io.stdout.write(`${JSON.stringify(answer)}\n`);
  } else {
    // Out-of-scope and failed answers are not streamed (no model call): print them whole.
    if (answer.state !== 'answered') io.stdout.write(answer.answer);
    io.stdout.write('\n');
    // A model's streamed text keeps the passages' [n] (and a retry restarts it): when the final answer
    // differs, print it as shown on the page, numbered like the sources below.
    const t = ASK_LABELS[answer.lang];
    if (answer.state === 'answered' && streamed !== answer.answer) io.stdout.write(`\n${t.final}\n${answer.answer}\n`);
    // A low-confidence answer says so, as the page does (the passages may not answer the question).
    if (answer.notice) io.stdout.write(`\n${answer.notice}\n`);
    if (answer.sources.length > 0) {
      // Numbered like the answer's [n] marks: [n] is the n-th line here.
      io.stdout.write(`\n${t.sources}\n`);
      answer.sources.forEach((s, i) => io.stdout.write(`  [${i + 1}] ${s.path}${s.section ? ` › ${s.section}` : ''}\n`));
    }
    io.stdout.write(`\n(${answer.provider}${answer.provider === 'offline' ? t.offline : ''})\n`);
  }
  return answer.state === 'answered' ? EXIT.ok : answer.state === 'outOfScope' ? EXIT.refused : EXIT.failure;
}
