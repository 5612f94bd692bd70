/**
 * Which sentences the offline answer quotes (actors/docs/offlineAnswer.ts `extractive`), chosen by
 * leave-one-set-out cross-validation on the tuning data (`learningItems`, answerable questions the
 * chart answers), on the reranked passages:
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-cite-cv.ts
 *
 * Variants: the best sentence of every passage whose best carries `closeShare` of the top
 * sentence's weight quoted first (over 1: plain score order), `sentences` quoted in all, and the
 * passages sent: those at or above the low bound (the former rule) or every retrieved one (`all k sent`,
 * what the chart does). For each labelled set left out, the variant with the most answers
 * citing a relevant source on the other sets is chosen (ties: more quotes from a relevant document,
 * then the current variant) and measured on the left-out set, next to the current one. Prints both
 * per set and pooled; "quotes" is the share of quoted sentences taken from a relevant document.
 */
import { loadavg } from 'node:os';
import { extractive, extractiveAnswer } from '../actors/docs/offlineAnswer.js';
import { LEARNING_SETS, learningItems, learningSetOf, offlineAssistant } from './support/ragData.js';
import { expectsRefusal } from './support/ragSets.js';

const assistant = await offlineAssistant();
const settings = assistant.defaults();
const sets = learningSetOf();
const questions: Array<{ set: number; question: string; relevant: string[]; sent: ReturnType<typeof assistant.search>; all: ReturnType<typeof assistant.search> }> = [];
for (const [i, it] of learningItems().entries()) {
  if (expectsRefusal(it)) continue;
  const a = await assistant.ask({ question: it.question, settings: { ...settings, confident: 0 } });
  if (a.state !== 'answered') continue;
  const hits = assistant.search(it.question, settings.k);
  questions.push({ set: sets[i]!, question: it.question, relevant: it.relevant, sent: hits.filter((h) => h.score >= settings.threshold), all: hits });
}

// Round 5's choice (plain score order, three sentences, passages under the low bound not sent).
const CURRENT = { closeShare: 2, sentences: 3, all: false };
const VARIANTS = [CURRENT, ...[false, true].flatMap((all) => [2, 0.5, 0.6, 0.7, 0.8, 0.9].flatMap((closeShare) => [3, 4].map((sentences) => ({ closeShare, sentences, all })))).slice(1)];
type Variant = (typeof VARIANTS)[number];
const label = (v: Variant): string => `${v.closeShare > 1 ? 'score order' : `close ${v.closeShare}`}, ${v.sentences} sentences${v.all ? ', all k sent' : ''}`;

/** Per question: cites a relevant source; quoted sentences; quoted from a relevant document. */
const outcome = new Map<Variant, Array<{ cites: boolean; quoted: number; relevantQuotes: number }>>();
for (const v of VARIANTS) {
  Object.assign(extractive, { closeShare: v.closeShare, sentences: v.sentences });
  outcome.set(
    v,
    questions.map((q) => {
      const sent = v.all ? q.all : q.sent;
      const a = extractiveAnswer({ model: 'offline', messages: [{ role: 'user', content: q.question }], documents: sent.map((p) => ({ id: p.id, title: p.section, source: p.path, text: p.text })) });
      const marks = [...a.text.matchAll(/« .+? » \[(\d+)\]/g)].map((m) => sent[Number(m[1]) - 1]!.path);
      return { cites: marks.some((p) => q.relevant.includes(p)), quoted: marks.length, relevantQuotes: marks.filter((p) => q.relevant.includes(p)).length };
    }),
  );
}
Object.assign(extractive, { closeShare: CURRENT.closeShare, sentences: CURRENT.sentences });

const pct = (n: number, d: number): number => (d ? Math.round((1000 * n) / d) / 10 : 0);
function score(v: Variant, rows: number[]): { cites: number; quotes: number } {
  const o = outcome.get(v)!;
  return { cites: pct(rows.filter((i) => o[i]!.cites).length, rows.length), quotes: pct(rows.reduce((n, i) => n + o[i]!.relevantQuotes, 0), rows.reduce((n, i) => n + o[i]!.quoted, 0)) };
}

const all = questions.map((_, i) => i);
const table: Array<Record<string, unknown>> = [];
const chosenOf = new Map<number, Variant>();
LEARNING_SETS.forEach((name, s) => {
  const train = all.filter((i) => questions[i]!.set !== s);
  const test = all.filter((i) => questions[i]!.set === s);
  const chosen = VARIANTS.reduce((b, v) => {
    const x = score(v, train);
    const y = score(b, train);
    return x.cites > y.cites || (x.cites === y.cites && x.quotes > y.quotes) ? v : b;
  }, CURRENT);
  for (const i of test) chosenOf.set(i, chosen);
  const before = score(CURRENT, test);
  const after = score(chosen, test);
  table.push({ 'left out': name, answered: test.length, chosen: label(chosen), 'cites relevant': `${before.cites} → ${after.cites}`, quotes: `${before.quotes} → ${after.quotes}` });
});
const pooled = (pick: (i: number) => Variant): { cites: number; quotes: number } => {
  const rows = all.map((i) => outcome.get(pick(i))![i]!);
  return { cites: pct(rows.filter((r) => r.cites).length, rows.length), quotes: pct(rows.reduce((n, r) => n + r.relevantQuotes, 0), rows.reduce((n, r) => n + r.quoted, 0)) };
};
const b = pooled(() => CURRENT);
const a = pooled((i) => chosenOf.get(i)!);
table.push({ 'left out': 'all', answered: all.length, chosen: 'each set its own', 'cites relevant': `${b.cites} → ${a.cites}`, quotes: `${b.quotes} → ${a.quotes}` });
console.log(JSON.stringify({ bench: 'rag-cite-cv', loadavg1m: +loadavg()[0]!.toFixed(1), answered: all.length, current: label(CURRENT) }));
console.table(table);
console.log('Every variant on every set (in-sample; cites relevant % / quotes from a relevant document %):');
console.table(VARIANTS.map((v) => ({ variant: label(v), ...Object.fromEntries(LEARNING_SETS.map((n, s) => [n, Object.values(score(v, all.filter((i) => questions[i]!.set === s))).join(' / ')])), all: Object.values(score(v, all)).join(' / ') })));
