/**
 * Which passages the offline answer quotes, chosen by a learned relevance instead of rank alone,
 * measured by cross-validation on the tuning data (`learningItems`, answerable questions):
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-cite.ts [--folds 2]
 *
 * On the ranking of rounds 3–4. For each held-out fold, the listwise passage model of bench/rag-rerank.ts is trained on the
 * other folds' candidates; the passages the chat sends (the k retrieved, those at or above the
 * threshold) are handed to the extractive answer in the order of that model instead of the retrieval
 * order, so its "lead" (the passage always quoted) is the passage the model finds most relevant.
 * Compared on the same questions: the answer cites a relevant source, and its quoted sentences
 * come from a relevant document. Kept only if the first rises on every fold and the second does
 * not fall.
 */
import { loadavg } from 'node:os';
import { z } from 'zod';
import { extractive, extractiveAnswer } from '../actors/docs/offlineAnswer.js';
import { ranking } from '../actors/retrieval/lexicalIndex.js';
import { PASSAGE_FEATURES } from '../actors/retrieval/rerank.js';
import { fitListwise, predict, stratifiedFolds } from './support/logistic.js';
import { learningItems, offlineAssistant } from './support/ragData.js';
import { expectsRefusal } from './support/ragSets.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const K = z.coerce.number().int().min(2).max(10).parse(opt('folds') ?? 2);
const POOL = 30;

const assistant = await offlineAssistant();
const settings = assistant.defaults();
const items = learningItems().filter((it) => !expectsRefusal(it));
const vector = (f: Record<(typeof PASSAGE_FEATURES)[number], number>): number[] => PASSAGE_FEATURES.map((n) => f[n]);

// Measured on the ranking of rounds 3–4 (before the learned reranker became the ranking, the
// passages sent were in that order).
ranking.rerank = false;
const questions = items.map((it) => {
  const cands = assistant.retriever.candidates(it.question, POOL).rows.map((c) => {
    const p = assistant.retriever.passage(c.id)!;
    return { id: c.id, x: vector(c.features), y: it.relevant.includes(p.path) ? 1 : 0 };
  });
  const hits = assistant.search(it.question, settings.k);
  const sent = hits.filter((h) => h.score >= settings.threshold);
  return { question: it.question, relevant: it.relevant, cands, sent };
});
const folds = stratifiedFolds(questions.map(() => 1), K);

function answer(q: (typeof questions)[number], order: typeof q.sent, leads = 1): { cites: boolean; quoted: number; relevantQuotes: number } {
  extractive.leads = leads;
  const a = extractiveAnswer({ model: 'offline', messages: [{ role: 'user', content: q.question }], documents: order.map((p) => ({ id: p.id, title: p.section, source: p.path, text: p.text })) });
  const cited = (a.citations ?? []).map((c) => order.find((p) => p.id === c.sourceId)!.path);
  const marks = [...a.text.matchAll(/« .+? » \[(\d+)\]/g)].map((m) => order[Number(m[1]) - 1]!.path);
  return { cites: cited.some((p) => q.relevant.includes(p)), quoted: marks.length, relevantQuotes: marks.filter((p) => q.relevant.includes(p)).length };
}

const pct = (n: number, d: number): number => (d ? Math.round((1000 * n) / d) / 10 : 0);
const table: Array<Record<string, unknown>> = [];
let keep = true;
for (let f = 0; f < K; f++) {
  const train = questions.filter((_, i) => folds[i] !== f);
  const test = questions.filter((_, i) => folds[i] === f && questions[i]!.sent.length > 0);
  const m = fitListwise(train.map((q) => ({ x: q.cands.map((c) => c.x), y: q.cands.map((c) => c.y) })));
  const sum = (rows: Array<ReturnType<typeof answer>>) => ({
    cites: pct(rows.filter((r) => r.cites).length, rows.length),
    quotesRelevant: pct(rows.reduce((n, r) => n + r.relevantQuotes, 0), rows.reduce((n, r) => n + r.quoted, 0)),
  });
  const current = sum(test.map((q) => answer(q, q.sent)));
  const learned = sum(
    test.map((q) => {
      const score = new Map(q.cands.map((c) => [c.id, predict(m, c.x)]));
      return answer(q, [...q.sent].sort((a, b) => (score.get(b.id) ?? 0) - (score.get(a.id) ?? 0)));
    }),
  );
  // Variant: rank order kept, and the model's most relevant passage quoted too (second lead) when
  // it is not the first passage.
  const both = sum(
    test.map((q) => {
      const score = new Map(q.cands.map((c) => [c.id, predict(m, c.x)]));
      const top = [...q.sent].sort((a, b) => (score.get(b.id) ?? 0) - (score.get(a.id) ?? 0))[0];
      if (!top || top.id === q.sent[0]!.id) return answer(q, q.sent);
      return answer(q, [q.sent[0]!, top, ...q.sent.slice(1).filter((p) => p.id !== top.id)], 2);
    }),
  );
  if (!(learned.cites > current.cites && learned.quotesRelevant >= current.quotesRelevant)) keep = false;
  table.push({ fold: f + 1, questions: test.length, 'cites relevant, rank order': current.cites, 'cites relevant, learned order': learned.cites, 'quotes from relevant doc, rank order': current.quotesRelevant, 'quotes from relevant doc, learned order': learned.quotesRelevant, 'cites, + learned lead': both.cites, 'quotes, + learned lead': both.quotesRelevant });
}
console.log(JSON.stringify({ bench: 'rag-cite', loadavg1m: +loadavg()[0]!.toFixed(1), answerable: questions.length, folds: K, gainsOnEveryFold: keep }));
console.table(table);
