import { styleText } from 'node:util';
import { dbPathOf } from '../../core/app.js';
import type { PalabreConfig } from '../../actors/palabreConfig.js';
import type { CorpusChoice } from '../corpusChoice.js';
import { configuredSurfaces, MARK, type Check } from './check.js';
import { checkCorpus, checkLexicons } from './corpus.js';
import { cacheDir } from '../../actors/corrections/cache.js';
import { checkGrammalecte, checkPostgres, checkTestBinary } from './engineChecks.js';
import { checkEmbeddedBroker, checkExternalBroker } from './mqtt.js';
import { checkSurfaceProviders, modelStatuses } from './providerChecks.js';
import { checkDataDir, checkNode, checkPort, checkSqlite } from './system.js';

export interface DoctorReport {
  ok: boolean;
  surfaces: string[];
  checks: Check[];
}

export interface DoctorInput {
  config: PalabreConfig;
  /** The environment (PATH for programs, DATABASE_URL, PYTHONPATH…). */
  env: Record<string, string | undefined>;
  corpus: CorpusChoice;
}

/**
 * Every check, for the surfaces SURFACES selects. `ok` is false when one line is ✗: something a
 * configured surface needs is missing. Independent probes (ports, brokers, programs) run at once.
 */
export async function runDoctor({ config, env, corpus }: DoctorInput): Promise<DoctorReport> {
  const { names, unknown } = configuredSurfaces(config.SURFACES);
  const checks: Check[] = [checkNode(), checkDataDir(config.DATA_DIR), checkSqlite(dbPathOf(config))];
  if (unknown.length > 0) {
    checks.push({ id: 'surfaces.names', group: 'system', label: 'SURFACES', status: 'fail', detail: `unknown surface(s) ${unknown.join(', ')}`, fix: 'SURFACES takes all, none, or names among skull, docs, corrections, t2, inspect' });
  }
  const skull = names.includes('skull');
  const network = Promise.all([
    checkPort('port.http', 'HTTP port', config.HOST, config.PORT, 'PORT'),
    ...(config.MQTT_URL
      ? [checkExternalBroker(config.MQTT_URL).then((c): Check => (skull || c.status === 'ok' ? c : { ...c, status: 'warn' }))]
      : [
        checkPort('port.mqtt', 'MQTT port', config.MQTT_EMBEDDED_HOST, config.MQTT_EMBEDDED_PORT, 'MQTT_EMBEDDED_PORT', ', or MQTT_URL to use the broker already there'),
        checkEmbeddedBroker(config.MQTT_EMBEDDED_HOST),
      ]),
  ]);
  const engines = Promise.all([
    checkGrammalecte({ mode: config.GRAMMALECTE, path: config.GRAMMALECTE_PATH, python: config.GRAMMALECTE_PYTHON, cacheDir: config.PALABRE_CACHE_DIR ?? cacheDir(), pathVar: env.PATH }),
    ...(env.DATABASE_URL ? [checkPostgres(env.DATABASE_URL, env.PATH)] : []),
    Promise.resolve(checkTestBinary('test.chromium', 'Chromium', ['chromium', 'chromium-browser'], 'chromium', 'page tests', env.PATH)),
    Promise.resolve(checkTestBinary('test.mosquitto', 'mosquitto', ['mosquitto'], 'mosquitto mosquitto-clients', 'MQTT 5 tests', env.PATH)),
  ]);
  const providers = checkSurfaceProviders(config, names);
  const [net, eng, models] = await Promise.all([network, engines, modelStatuses(config, providers.models)]);
  checks.push(...net, ...eng, ...providers.checks, ...models);
  if (names.includes('docs')) checks.push(checkCorpus(config, corpus), checkLexicons(config));
  return { ok: checks.every((c) => c.status !== 'fail'), surfaces: names, checks };
}

const GROUPS: Check['group'][] = ['system', 'network', 'engines', 'surfaces', 'corpus'];

/** The table: a heading per group, `✓ label  detail`, and `→ fix` under every line that is not ✓. */
const COLOUR: Record<Check['status'], Parameters<typeof styleText>[0]> = { ok: 'green', fail: 'red', warn: 'yellow', unchecked: 'gray' };

export function renderReport(report: DoctorReport, version: string, surfacesSetting: string, colour = false): string {
  const mark = (c: Check) => (colour ? styleText(COLOUR[c.status], MARK[c.status]) : MARK[c.status]);
  const width = Math.max(...report.checks.map((c) => c.label.length));
  const lines = [`palabre doctor — palabre ${version}, SURFACES=${surfacesSetting} (${report.surfaces.join(', ') || 'none'})`];
  for (const group of GROUPS) {
    const rows = report.checks.filter((c) => c.group === group);
    if (rows.length === 0) continue;
    lines.push('', group);
    for (const c of rows) {
      lines.push(`  ${mark(c)} ${c.label.padEnd(width)}  ${c.detail}`);
      if (c.fix && c.status !== 'ok') lines.push(`    ${' '.repeat(width)}  → ${c.fix}`);
    }
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  const optional = report.checks.filter((c) => c.status === 'warn').length;
  lines.push('');
  lines.push(failed === 0
    ? `Everything the configured surfaces need is there${optional ? ` (${optional} optional item${optional > 1 ? 's' : ''} marked !)` : ''}.`
    : `${failed} problem${failed > 1 ? 's' : ''} (✗): apply the fix under each, then run palabre doctor again.`);
  lines.push('✓ ok   ✗ needed and missing   ! optional, missing   ? not checked');
  return `${lines.join('\n')}\n`;
}
