import { analyzeQuery, detectLang, words, type QueryToken } from '../retrieval/analyze.js';
import { stem } from '../retrieval/stem.js';
import { isStopWord } from '../retrieval/stopwords.js';
import type { OfflineAnswer } from '../llm/offline.js';
import type { GenerateRequest } from '../../machines/llmPort.js';

/**
 * The offline provider's answer for purpose `chat`: extractive and cited. The sentences of the
 * passages sent that carry the question's informative words are quoted as they are, each followed
 * by the `[n]` of its passage; nothing is generated. Pure function of the request.
 *
 * "Informative" is measured on the passages sent: a question word found in many of their sentences
 * (« données », « garder ») weighs little, a rare one (« prospect », « Last-Event-ID ») a lot. A
 * sentence is quoted when it carries at least half the weight of the best sentence and, for a
 * question of several words, more than one of them — a sentence sharing a single common word with
 * the question is not an answer. When only one sentence qualifies, the answer says so.
 */
export const OFFLINE_PREFIXES = {
  fr: 'Réponse extractive (mode hors ligne, aucun modèle appelé) :',
  en: 'Extractive answer (offline mode, no model called):',
} as const;
export const OFFLINE_PREFIX = OFFLINE_PREFIXES.fr;
export const SINGLE_SENTENCE_NOTES = {
  fr: 'Une seule phrase de la documentation porte les mots de votre question :',
  en: 'Only one sentence of the documentation carries the words of your question:',
} as const;
const MAX_SENTENCE_CHARS = 400;
/** A sentence bringing the block its colon announces may be that much longer. */
const MAX_UNIT_CHARS = MAX_SENTENCE_CHARS + 500;
/**
 * What is quoted (measured by bench/rag-tune.ts and bench/rag-cite-cv.ts):
 * - `leads`, `leadShare`: the best sentence of each of the first `leads` passages is quoted when it
 *   carries `leadShare` of the best sentence's weight. Two leads helped on both folds of the tuning
 *   data (relevant source cited 78.9 → 80.6 %) only by citing more passages: fewer quotes came from a
 *   relevant document and a code line of an unrelated page was quoted next to the right answer
 *   (bench/journal/2026-12-docs-assistant.md § Fourth round). So one.
 * - `sentences`, `closeShare`: up to four sentences, and the best sentence of every passage whose
 *   best carries 50 % of the top sentence's weight comes first. Chosen by leave-one-set-out
 *   cross-validation over the five labelled sets (§ Sixth round): with the chart sending every
 *   retrieved passage, answers citing a relevant source rose on every left-out set (80.0 → 86.4 %
 *   pooled), quoted sentences from a relevant document fell (54.2 → 46.7 %). With one source per
 *   page, 50 % is also what every left-out set chose (§ Ninth round).
 */
export const extractive = { leads: 1, leadShare: 0.3, sentences: 4, closeShare: 0.5 };

/**
 * The first `n` of `ranked` (best first), the best sentence of every passage whose best carries
 * `closeShare` of the top sentence's weight first, so that three sentences of the lead passage do
 * not crowd out a passage of another page nearly as close to the question. Over 1: plain score order.
 */
function spread<T extends { doc: number; score: number }>(ranked: T[], closeShare: number, n: number): T[] {
  const top = ranked[0]?.score ?? 0;
  const seen = new Set<number>();
  const first = ranked.filter((c) => c.score >= top * closeShare && !seen.has(c.doc) && seen.add(c.doc) !== undefined);
  return [...first, ...ranked.filter((c) => !first.includes(c))].slice(0, n);
}

/**
 * Sentences of a passage, as units a reader can quote whole. Markdown wraps paragraphs at a fixed
 * width, so a single line break inside a paragraph is a space; a blank line, a list item, a heading
 * or a table row starts anew. A table row is one unit (its header row, a list of column names, is
 * none). A sentence ending on a colon announces what follows — a command, a list, an example — so
 * the block after it comes with it (« set PORT to a free port: PORT=3001 npm start »). A unit made
 * mostly of file paths or identifiers (a file list) is not an answer and is not quoted.
 */
const SOFT_BREAK = /\n(?![ \t]*(?:[-*•+] |\d+[.)] |#|\||\n))/g;
const TABLE_ROW = /\S \| \S|^\|/;
/** What a colon's sentence brings along at most (a command, a short list). */
const MAX_FOLLOW_CHARS = 500;

const clean = (s: string): string => s.replace(/^[-*•\d.)\s]+(?=\S)/, '').replace(/\s+/g, ' ').trim();

/** Most of the unit's characters are in file paths (« web/docs/docsMount.ts », « core/store/db.ts »). */
function mostlyPaths(unit: string): boolean {
  const parts = unit.split(/[\s,;|()]+/).filter((w) => w.length > 0);
  // A file name has an extension: « resources/read » and « notifications/cancelled » are protocol
  // methods, which answers name.
  const pathChars = parts.filter((w) => /\w\.(?:ts|js|mjs|json|md|mdx|py|sh|yml|yaml|toml|txt)\b/.test(w)).reduce((n, w) => n + w.length, 0);
  return pathChars / Math.max(1, parts.reduce((n, w) => n + w.length, 0)) >= 0.4;
}

function paragraphUnits(block: string): string[] {
  return block
    .replace(SOFT_BREAK, ' ')
    .split(/\n+|(?<=[.!?;:])\s+(?=[A-ZÀ-ÖØ-Þ«"*(\-•])/u)
    .map(clean);
}

const isTable = (block: string): boolean => {
  const lines = block.split('\n');
  return lines.length > 1 && lines.every((l) => TABLE_ROW.test(l.trim()));
};

/** A quotable unit: what is shown, and the sentence its weight is measured on. */
interface Unit {
  text: string;
  own: string;
}

function sentences(text: string): Unit[] {
  const blocks = text.split(/\n[ \t]*\n/).map((b) => b.replace(/^\n+|\n+$/g, '')).filter((b) => b.trim() !== '');
  const out: Unit[] = [];
  blocks.forEach((block, i) => {
    const lines = block.split('\n');
    const table = isTable(block);
    const units = table ? lines.slice(1).map((l) => l.replace(/\s+/g, ' ').trim()) : paragraphUnits(block);
    // A table after the colon is quoted row by row, the row that answers rather than the whole table.
    const next = blocks[i + 1] !== undefined && !isTable(blocks[i + 1]!) ? blocks[i + 1] : undefined;
    units.forEach((u, j) => {
      // The last sentence of a block ending on a colon shows the block it announces; it is chosen
      // on its own words, so a long block does not make it outrank a closer sentence.
      if (!table && j === units.length - 1 && u.endsWith(':') && next !== undefined) {
        const follow = next.split('\n').map((l) => l.trim()).filter(Boolean).join('\n');
        out.push({ text: `${u} ${follow.length > MAX_FOLLOW_CHARS ? `${follow.slice(0, MAX_FOLLOW_CHARS)}…` : follow}`, own: u });
      } else out.push({ text: u, own: u });
    });
  });
  // A question the docs quote as an example (« Comment configurer le port HTTP ? ») is not an answer.
  return out.filter((u) => u.own.length >= 15 && !mostlyPaths(u.text) && !/«[^»]*\?\s*»|"[^"]*\?"/.test(u.own));
}

function sentenceStems(sentence: string): Set<string> {
  const out = new Set<string>();
  for (const w of words(sentence)) {
    if (w.length < 2 || isStopWord(w)) continue;
    out.add(stem(w, 'fr'));
    out.add(stem(w, 'en'));
  }
  return out;
}

/**
 * « Comment changer le port HTTP ? », « How do I set the model? »: the verb says what the reader
 * wants to do, the rest says what about. Rare in the docs' sentences, the verb weighed most and a
 * sentence holding it (« names the variable to change ») outranked the one giving the setting and
 * its command; it counts for a fifth of its weight.
 */
const HOW_TO = new Set(['changer', 'modifier', 'configurer', 'regler', 'definir', 'parametrer', 'change', 'modify', 'configure', 'set', 'adjust', 'customize', 'customise']);
const HOW_TO_WEIGHT = 0.2;

/** Weight of each question word within the passages sent: ln(1 + S / (1 + sentences holding it)). */
function localWeights(tokens: QueryToken[], all: Array<Set<string>>): number[] {
  return tokens.map((t) => {
    const holding = all.filter((stems) => t.variants.some((v) => stems.has(v))).length;
    return Math.log(1 + all.length / (1 + holding));
  });
}

export function extractiveAnswer(req: GenerateRequest): OfflineAnswer {
  const docs = req.documents ?? [];
  const question = [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const lang = detectLang(question);
  const tokens = analyzeQuery(question);
  const split = docs.map((d) => sentences(d.text).map((u) => ({ text: u.text, stems: sentenceStems(u.own) })));
  const weights = localWeights(tokens, split.flat().map((s) => s.stems)).map((w, j) => (HOW_TO.has(tokens[j]!.word) ? w * HOW_TO_WEIGHT : w));
  const candidates: Array<{ text: string; doc: number; order: number; score: number; hits: number }> = [];
  split.forEach((list, i) => {
    list.forEach((s, order) => {
      let score = 0;
      let hits = 0;
      tokens.forEach((t, j) => {
        if (t.variants.some((v) => s.stems.has(v))) {
          score += weights[j]!;
          hits++;
        }
      });
      // Earlier passages ranked higher: a small bonus breaks ties in their favour (a rank discount
      // was tried on the tuning set: fewer relevant sources cited).
      candidates.push({ text: s.text.length > MAX_UNIT_CHARS ? `${s.text.slice(0, MAX_UNIT_CHARS)}…` : s.text, doc: i, order, score: score - i * 0.001, hits });
    });
  });
  const top = Math.max(0, ...candidates.map((c) => c.score));
  const minHits = tokens.length >= 3 ? 2 : 1;
  const seen = new Set<string>();
  const ranked = candidates
    .filter((c) => c.score > 0 && c.score >= top * 0.5 && c.hits >= minHits)
    .sort((a, b) => b.score - a.score || a.doc - b.doc || a.order - b.order)
    .filter((c) => !seen.has(c.text) && seen.add(c.text) !== undefined);
  let best = spread(ranked, extractive.closeShare, extractive.sentences).sort((a, b) => a.doc - b.doc || a.order - b.order);
  // The best-ranked passage is the retriever's best guess: its best sentence is quoted when it
  // carries the question's words, even if a lower passage's sentence weighs a little more. One
  // question word is enough here when it weighs `leadShare` of the best sentence: the passage as a
  // whole was ranked first on all of them (measured on the tuning set: relevant source cited
  // 81.6 % → 83.2 %, quotes from relevant documents 56.4 % → 56.9 %). With `leads` > 1 the next
  // passages get the same, the earlier ones first.
  for (let doc = extractive.leads - 1; doc >= 0; doc--) {
    if (best.some((c) => c.doc === doc)) continue;
    const lead = candidates.filter((c) => c.doc === doc && c.hits >= 1 && c.score >= top * extractive.leadShare && !seen.has(c.text)).sort((a, b) => b.score - a.score)[0];
    if (lead) best = [lead, ...best].slice(0, extractive.sentences).sort((a, b) => a.doc - b.doc || a.order - b.order);
  }
  // No sentence carries two question words: the single best one, if any word at all matched.
  if (best.length === 0) best = candidates.filter((c) => c.score > 0 && c.score >= top).slice(0, 1);
  if (best.length === 0 && docs[0]) {
    const first = split[0]?.[0]?.text ?? docs[0].text.slice(0, MAX_SENTENCE_CHARS);
    best.push({ text: first, doc: 0, order: 0, score: 0, hits: 0 });
  }
  // A unit already shown inside another (a line of the block a colon brought along) is not repeated.
  best = best.filter((c) => !best.some((o) => o !== c && o.text.length > c.text.length && o.text.includes(c.text)));
  const lines = best.map((c) => `« ${c.text} » [${c.doc + 1}]`);
  const cited = [...new Set(best.map((c) => c.doc))];
  const intro = best.length === 1 ? `${OFFLINE_PREFIXES[lang]}\n\n${SINGLE_SENTENCE_NOTES[lang]}` : OFFLINE_PREFIXES[lang];
  return {
    text: `${intro}\n\n${lines.join('\n\n')}`,
    citations: cited.map((i) => ({ sourceId: docs[i]!.id, citedText: best.find((c) => c.doc === i)!.text })),
  };
}
