import { analyzeQuery, stem, words } from '../retrieval/analyze.js';
import { isStopWord } from '../retrieval/stopwords.js';
import type { OfflineAnswer } from '../llm/offline.js';
import type { GenerateRequest } from '../llm/types.js';

/**
 * The offline provider's answer for purpose `chat`: extractive and cited. The sentences of the
 * passages sent that share the most (IDF-free) question words are quoted as they are, each
 * followed by the `[n]` of its passage; nothing is generated. Pure function of the request.
 */
export const OFFLINE_PREFIX = 'Réponse extractive (mode hors ligne, aucun modèle appelé) :';
const MAX_SENTENCES = 3;
const MAX_SENTENCE_CHARS = 400;

/**
 * Sentences of a passage. Markdown wraps paragraphs at a fixed width, so a single line break
 * inside a paragraph is a space; a blank line, a list item, a heading or a table row starts anew.
 */
const SOFT_BREAK = /\n(?![ \t]*(?:[-*•+] |\d+[.)] |#|\||\n))/g;

function sentences(text: string): string[] {
  return text
    .replace(SOFT_BREAK, ' ')
    .split(/\n+|(?<=[.!?;:])\s+(?=[A-ZÀ-ÖØ-Þ«"*(\-•])/u)
    .map((s) => s.replace(/^[-*•\d.)\s]+/, '').replace(/\s+/g, ' ').trim())
    .filter((s) => s.length >= 15);
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

export function extractiveAnswer(req: GenerateRequest): OfflineAnswer {
  const docs = req.documents ?? [];
  const question = [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const tokens = analyzeQuery(question);
  const candidates: Array<{ text: string; doc: number; order: number; score: number }> = [];
  docs.forEach((d, i) => {
    sentences(d.text).forEach((s, order) => {
      const stems = sentenceStems(s);
      const hit = tokens.filter((t) => t.variants.some((v) => stems.has(v))).length;
      // Earlier passages ranked higher: a small bonus breaks ties in their favour.
      candidates.push({ text: s.length > MAX_SENTENCE_CHARS ? `${s.slice(0, MAX_SENTENCE_CHARS)}…` : s, doc: i, order, score: hit - i * 0.01 });
    });
  });
  const seen = new Set<string>();
  const best = candidates
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.doc - b.doc || a.order - b.order)
    .filter((c) => !seen.has(c.text) && seen.add(c.text) !== undefined)
    .slice(0, MAX_SENTENCES)
    .sort((a, b) => a.doc - b.doc || a.order - b.order);
  if (best.length === 0 && docs[0]) {
    const first = sentences(docs[0].text)[0] ?? docs[0].text.slice(0, MAX_SENTENCE_CHARS);
    best.push({ text: first, doc: 0, order: 0, score: 0 });
  }
  const lines = best.map((c) => `« ${c.text} » [${c.doc + 1}]`);
  const cited = [...new Set(best.map((c) => c.doc))];
  return {
    text: `${OFFLINE_PREFIX}\n\n${lines.join('\n\n')}`,
    citations: cited.map((i) => ({ sourceId: docs[i]!.id, citedText: best.find((c) => c.doc === i)!.text })),
  };
}
