/**
 * Docs assistant quality, offline, on a labelled question set (test/docs/eval/rag-qa-unseen.json):
 * retrieval (recall@k, latency), the guard's band (refused / answered "low" / answered "high" for
 * answerable and out-of-scope questions), citations (relevant source cited, marks without source),
 * the extractive answer's quoted sentences, and how often each guard cue fires.
 *
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --split tune
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --split heldout   # once, at the end
 *   npx tsx bench/rag-quality.ts --set fresh --split fresh    # the second held-out set (shared corpus)
 *   npx tsx bench/rag-quality.ts --set docs --split fresh     # questions on the project's own docs/
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --set tuning     # all tuning data: unseen + fresh + third's tune half
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --set third --split heldout   # once, at the end (spent)
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --set fourth --split heldout  # the fourth set, all held out: once (spent)
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --set fifth --split heldout   # the fifth set, all held out: once
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --set sixth --split heldout   # the sixth set, all held out: once, at the end
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --set seventh --split heldout # the seventh set, all held out, in no tuning data: once, by the lead
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --set eighth --split heldout  # the eighth set, all held out, in no tuning data: once, by the lead
 *   CORPUS_DIR=../../shared/corpus npx tsx bench/rag-quality.ts --set ninth --split heldout   # the ninth set, all held out, in no tuning data: once, by the lead
 *
 * Options: --set unseen|fresh|docs|third|fourth|fifth|sixth|seventh|eighth|ninth|tuning (which labelled file; docs defaults CORPUS_DIR to docs/), --eval path,
 * --threshold T, --confident H (default: configuration), --details, --out file (per-question table as JSON lines).
 * Retrieval variants (lexicalIndex.ts `ranking`, coverage.ts `related`), to measure them:
 * --lexicons off|DIR (default: configuration), --translations N, --synonyms N (per word), --max-df S, --boost B, --expand-df D (expand only words in at most D passages), --credit C,
 * --feedback DOCS[,TERMS[,BOOST]], --file-weight W, --per-file N, --glossary off.
 * The whole assistant runs (chat chart, offline provider), as `palabre ask` would with no key.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createDocsAssistant } from '../actors/docs/assistant.js';
import { createOfflineProvider } from '../actors/llm/offline.js';
import { detectLang } from '../actors/retrieval/analyze.js';
import { fold } from '../machines/textFold.js';
import { related } from '../actors/retrieval/coverage.js';
import { glossaryUse } from '../actors/retrieval/glossary.js';
import { ranking } from '../actors/retrieval/lexicalIndex.js';
import { relevanceSignals } from '../actors/retrieval/relevance.js';
import { loadPalabreConfig } from '../actors/palabreConfig.js';
import { REFUSE_UNSEEN_SHARE, DOUBT_UNSEEN_SHARE } from '../machines/chat.js';
import { expectsRefusal, readSet, SET_NAMES, SETS, tuningItems } from './support/ragSets.js';
import { existingCorpus } from './support/ragData.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const split = opt('split') ?? 'tune';
const set = z.enum([...SET_NAMES, 'tuning']).parse(opt('set') ?? 'unseen');
const corpus = existingCorpus(process.env.CORPUS_DIR ?? (set === 'docs' ? 'docs' : '../../shared/corpus'));
const num = (name: string): number | undefined => (opt(name) === undefined ? undefined : z.coerce.number().min(0).parse(opt(name)));
ranking.expansion.translations = num('translations') ?? ranking.expansion.translations;
ranking.expansion.synonyms = num('synonyms') ?? ranking.expansion.synonyms;
ranking.expansion.maxDfShare = num('max-df') ?? ranking.expansion.maxDfShare;
ranking.expansion.boost = num('boost') ?? ranking.expansion.boost;
ranking.expansion.maxWordDf = num('expand-df') ?? ranking.expansion.maxWordDf;
related.credit = num('credit') ?? related.credit;
glossaryUse.on = opt('glossary') !== 'off';
ranking.fileWeight = num('file-weight') ?? ranking.fileWeight;
ranking.perFile = num('per-file') ?? ranking.perFile;
if (opt('feedback')) {
  const [docs, terms, boost] = opt('feedback')!.split(',').map(Number);
  ranking.feedback = { docs: docs ?? 0, terms: terms ?? ranking.feedback.terms, boost: boost ?? ranking.feedback.boost };
}

const items =
  set === 'tuning' && !opt('eval')
    ? tuningItems()
    : readSet(opt('eval') ?? SETS[set as keyof typeof SETS]).filter((x) => split === 'all' || (x.split ?? 'tune') === split);

const config = loadPalabreConfig({
  env: {
    ...process.env,
    CORPUS_DIR: corpus,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'palabre-rag-')),
    CHAT_PROVIDER: 'offline',
    ...(opt('lexicons') ? { DOCS_LEXICONS: opt('lexicons') } : {}),
    ...(opt('threshold') ? { CHAT_SCORE_THRESHOLD: opt('threshold') } : {}),
    ...(opt('confident') ? { CHAT_SCORE_CONFIDENT: opt('confident') } : {}),
  },
  dotenvPath: null,
});
const offline = createOfflineProvider();
const assistant = createDocsAssistant({
  config,
  providers: { get: () => offline, resolve: () => offline, available: () => ['offline'] },
  persist: false,
});
await assistant.ready();
const settings = assistant.defaults();
const K = settings.k;

const pct = (n: number, d: number): number => (d ? Math.round((1000 * n) / d) / 10 : 0);
const QUOTE = /« (.+?) » \[(\d+)\]/g;

let ans = 0, oos = 0, at5 = 0, at1 = 0;
let ansRefused = 0, ansHigh = 0, ansLow = 0, oosRefused = 0, oosHigh = 0, oosLow = 0;
let answeredAns = 0, citesRelevant = 0, marksWithoutSource = 0, removedMarks = 0;
let quoted = 0, quotedRelevantDoc = 0, quotedWithKeyword = 0, singleNotes = 0;
const cue = (): { ans: number; oos: number } => ({ ans: 0, oos: 0 });
const cues = {
  unseen50: cue(), unseen75: cue(), unknownName: cue(), nameNotRetrieved: cue(), liveData: cue(), langMismatch: cue(),
  // Measured, not used (docs/docs-assistant.md § Confidence):
  heaviestWordUnseen: cue(), heaviestWordNotRetrieved: cue(),
};
const answerLangOk = { ok: 0, n: 0 };
const timings: number[] = [];
const details: Array<Record<string, unknown>> = [];

for (const it of items) {
  const expectRefusal = expectsRefusal(it);
  const t0 = performance.now();
  const hits = assistant.search(it.question, K);
  timings.push(performance.now() - t0);
  const rank = hits.findIndex((h) => it.relevant.includes(h.path));
  const best = hits.reduce<(typeof hits)[number] | undefined>((b, h) => (!b || h.score > b.score ? h : b), undefined);
  const bestWords = assistant.retriever.explain(it.question, best?.id ?? '');
  const retrievedWords = hits.map((h) => assistant.retriever.explain(it.question, h.id));
  const signals = relevanceSignals(it.question, bestWords, retrievedWords);
  const heaviest = Math.max(0, ...bestWords.map((w) => w.weight));
  const heavy = bestWords.filter((w) => w.weight === heaviest);
  const qLang = detectLang(it.question);
  const side = expectRefusal ? 'oos' : 'ans';
  if (signals.unseenShare >= DOUBT_UNSEEN_SHARE) cues.unseen50[side]++;
  if (signals.unseenShare >= REFUSE_UNSEEN_SHARE) cues.unseen75[side]++;
  if (signals.unknownNames.length > 0) cues.unknownName[side]++;
  if (signals.namesNotRetrieved.length > 0) cues.nameNotRetrieved[side]++;
  if (signals.liveData) cues.liveData[side]++;
  if (heavy.some((w) => w.df === 0)) cues.heaviestWordUnseen[side]++;
  if (heavy.length > 0 && heavy.every((w) => !retrievedWords.some((p) => p.some((x) => x.word === w.word && x.matched)))) cues.heaviestWordNotRetrieved[side]++;
  if (best && best.lang !== qLang) cues.langMismatch[side]++;

  const a = await assistant.ask({ question: it.question, settings });
  answerLangOk.n++;
  if (a.lang === (it.lang ?? qLang)) answerLangOk.ok++;
  removedMarks += a.removedMarks;
  for (const m of a.answer.matchAll(/\[(\d+)\]/g)) if (Number(m[1]) < 1 || Number(m[1]) > a.sources.length) marksWithoutSource++;
  const verdict = a.state !== 'answered' ? 'refused' : a.confidence;
  if (expectRefusal) {
    oos++;
    if (verdict === 'refused') oosRefused++;
    else if (verdict === 'high') oosHigh++;
    else oosLow++;
  } else {
    ans++;
    if (rank === 0) at1++;
    if (rank >= 0 && rank < K) at5++;
    if (verdict === 'refused') ansRefused++;
    else if (verdict === 'high') ansHigh++;
    else ansLow++;
    if (a.state === 'answered') {
      answeredAns++;
      if (a.sources.some((s) => it.relevant.includes(s.path))) citesRelevant++;
      if (a.answer.includes('Une seule phrase') || a.answer.includes('Only one sentence')) singleNotes++;
      const kws = (it.keywords ?? []).map(fold);
      for (const m of a.answer.matchAll(QUOTE)) {
        quoted++;
        const src = a.sources[Number(m[2]) - 1];
        const fromRelevant = src !== undefined && it.relevant.includes(src.path);
        if (fromRelevant) quotedRelevantDoc++;
        if (fromRelevant && kws.some((k) => fold(m[1]!).includes(k))) quotedWithKeyword++;
      }
    }
  }
  details.push({
    id: it.id,
    question: it.question,
    expect: expectRefusal ? 'oos' : 'ans',
    got: verdict,
    best: best ? Math.round(best.score * 100) / 100 : 0,
    unseen: signals.unseenShare,
    names: [...signals.unknownNames, ...signals.namesNotRetrieved.filter((n) => !signals.unknownNames.includes(n)).map((n) => `${n}?`)].join(','),
    rank: rank >= 0 ? rank + 1 : null,
    citesRelevant: a.state === 'answered' && !expectRefusal ? a.sources.some((s) => it.relevant.includes(s.path)) : null,
    cited: a.sources.map((s) => s.path.split('/').pop()!.slice(0, 28)).join(' | ').slice(0, 60),
  });
}

timings.sort((x, y) => x - y);
const p50 = timings[Math.floor(timings.length / 2)] ?? 0;
const summary = {
  bench: 'rag-quality',
  set,
  split: set === 'tuning' ? 'unseen all + fresh all + third tune' : split,
  expansion: assistant.expansion,
  ranking: { ...ranking, credit: related.credit, glossary: glossaryUse.on },
  loadavg1m: +loadavg()[0]!.toFixed(1),
  passages: assistant.retriever.passageCount,
  threshold: settings.threshold,
  confident: settings.confident,
  answerable: ans,
  outOfScope: oos,
  recallAt1: pct(at1, ans),
  [`recallAt${K}`]: pct(at5, ans),
  answerableRefusedPct: pct(ansRefused, ans),
  answerableHighPct: pct(ansHigh, ans),
  answerableLowPct: pct(ansLow, ans),
  outOfScopeHighPct: pct(oosHigh, oos),
  outOfScopeLowPct: pct(oosLow, oos),
  outOfScopeRefusedPct: pct(oosRefused, oos),
  answeredCitesRelevantPct: pct(citesRelevant, answeredAns),
  marksWithoutSource,
  marksRemovedServerSide: removedMarks,
  quotedSentences: quoted,
  quotedFromRelevantDocPct: pct(quotedRelevantDoc, quoted),
  quotedRelevantWithKeywordPct: pct(quotedWithKeyword, quoted),
  singleSentenceAnswers: singleNotes,
  answerInQuestionLangPct: pct(answerLangOk.ok, answerLangOk.n),
  retrievalP50ms: Math.round(p50 * 1000) / 1000,
};
console.log(JSON.stringify(summary));
console.table([summary]);
console.log('Guard cues: how many answerable (ans) and out-of-scope (oos) questions each one fires on');
console.table(Object.entries(cues).map(([cue, n]) => ({ cue, ans: `${n.ans}/${ans}`, oos: `${n.oos}/${oos}` })));
if (args.includes('--details')) console.table(details);
if (opt('out')) writeFileSync(opt('out')!, [JSON.stringify(summary), ...details.map((d) => JSON.stringify(d))].join('\n') + '\n');
