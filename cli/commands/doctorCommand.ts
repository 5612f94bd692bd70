import { configFromArgs } from '../configArgs.js';
import { chooseCorpus } from '../corpusChoice.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';

/**
 * `palabre doctor`: what each configured surface needs, checked on this machine, one line each
 * with its fix. Exit 0 when nothing needed is missing, 1 otherwise (cli/definitions.ts).
 */
export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  const parsed = configFromArgs('doctor', args, io);
  if ('exit' in parsed) return parsed.exit;
  const { config } = parsed;
  const [{ runDoctor, renderReport }, { VERSION }] = await Promise.all([import('../doctor/run.js'), import('../../core/version.js')]);
  const file = parsed.args.string('config');
  const corpus = chooseCorpus(config, { load: { env: io.env, ...(file ? { file } : {}) } });
  const report = await runDoctor({ config, env: io.env, corpus });
  if (parsed.args.flag('json')) io.stdout.write(`${JSON.stringify({ version: VERSION, ...report })}\n`);
  else io.stdout.write(renderReport(report, VERSION, config.SURFACES, (io.stdout as NodeJS.WriteStream).isTTY === true && !io.env.NO_COLOR));
  return report.ok ? EXIT.ok : EXIT.failure;
}
