/**
 * What the docs assistant refuses and how sure it is, offline, on test/docs/eval/rag-qa-scope.json:
 * unrelated questions (world knowledge, weather, sport, other products) in French and in English,
 * traps in the docs' own words (the corpus talks about the topic, never answers the question), and
 * answerable questions phrased as situations, each with its relevant files.
 *
 *   npx tsx bench/rag-scope.ts --split tune      # what the rules were tuned on
 *   npx tsx bench/rag-scope.ts --split heldout   # run once, at the end
 *
 * Options: --corpus DIR (default ../../shared/corpus, or CORPUS_DIR), --details (one line per question),
 * --ids odd|even (the questions whose id number is odd or even: a spent set split into a tuning
 * half and a checking half).
 * Prints, per kind: refused / answered "low" / answered "high" (and, for answerable ones, whether a
 * relevant file is among the answer's sources). The whole assistant runs (chat chart, offline
 * provider), as `palabre ask` does with no key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createDocsAssistant } from '../actors/docs/assistant.js';
import { createOfflineProvider } from '../actors/llm/offline.js';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { existingCorpus } from './support/ragData.js';
import { readSet, SETS } from './support/ragSets.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const split = z.enum(['tune', 'heldout', 'all']).parse(opt('split') ?? 'tune');
const corpus = existingCorpus(opt('corpus') ?? process.env.CORPUS_DIR ?? '../../shared/corpus');
// --ids odd|even: half a set by the number in its ids, to tune on one half and check on the other.
const half = z.enum(['odd', 'even', 'all']).parse(opt('ids') ?? 'all');
const inHalf = (id: string): boolean => half === 'all' || Number(id.replace(/\D/g, '')) % 2 === (half === 'odd' ? 1 : 0);
const items = readSet(opt('eval') ?? SETS.scope).filter((x) => (split === 'all' || x.split === split) && inHalf(x.id));

const config = loadPalabreConfig({
  env: { ...process.env, CORPUS_DIR: corpus, DATA_DIR: mkdtempSync(join(tmpdir(), 'palabre-scope-')), CHAT_PROVIDER: 'offline' },
  dotenvPath: null,
});
const offline = createOfflineProvider();
const assistant = createDocsAssistant({ config, providers: { get: () => offline, resolve: () => offline, available: () => ['offline'] }, persist: false });
await assistant.ready();
const settings = assistant.defaults();

type Row = { n: number; refused: number; low: number; high: number; relevant: number; answered: number };
const rows = new Map<string, Row>();
const row = (k: string): Row => rows.get(k) ?? rows.set(k, { n: 0, refused: 0, low: 0, high: 0, relevant: 0, answered: 0 }).get(k)!;
const details: Array<Record<string, unknown>> = [];
for (const it of items) {
  const a = await assistant.ask({ question: it.question, settings });
  const got = a.state !== 'answered' ? 'refused' : a.confidence;
  const keys = it.kind === 'unrelated' ? [`unrelated ${it.lang}`] : [`${it.kind}`, `${it.kind} ${it.part ?? ''}`];
  const hit = a.sources.some((s) => it.relevant.includes(s.path));
  for (const k of keys) {
    const r = row(k);
    r.n++;
    r[got]++;
    if (a.state === 'answered') {
      r.answered++;
      if (hit) r.relevant++;
    }
  }
  details.push({ id: it.id, kind: it.kind, got, relevant: it.kind === 'answerable' ? hit : '', question: it.question.slice(0, 70), sources: a.sources.map((s) => s.path.split('/').pop()).join(' | ').slice(0, 60) });
}
const pct = (n: number, d: number): number => (d ? Math.round((1000 * n) / d) / 10 : 0);
const table = [...rows.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([kind, r]) => ({
  kind,
  n: r.n,
  refusedPct: pct(r.refused, r.n),
  lowPct: pct(r.low, r.n),
  highPct: pct(r.high, r.n),
  relevantSourcePct: kind.startsWith('answerable') ? pct(r.relevant, r.answered) : '',
}));
console.log(JSON.stringify({ bench: 'rag-scope', split, ids: half, corpus, passages: assistant.retriever.passageCount, rows: table }));
console.table(table);
if (args.includes('--details')) console.table(details);
