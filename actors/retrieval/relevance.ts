import { fold } from '../../machines/textFold.js';
import type { RelevanceSignals } from '../../machines/chat.js';

/**
 * Question-level cues the chat guard uses besides the best passage's score (docs/docs-assistant.md
 * § Confidence, where each one is measured on the tuning set):
 * - `unseenShare`: the IDF-weighted share of the question's words the corpus never uses. A
 *   question whose heaviest words are all unknown here (« crêpes », « vitamin ») is about
 *   something else, however well its remaining words match.
 * - `unknownNames`: capitalised words, not first in the question, that the corpus never uses
 *   (« Lyon », « Netflix »): a named thing the docs do not mention. The docs' own example
 *   servers and tools share many words with such questions, never the name.
 * - `namesNotRetrieved`: the same capitalised words (names, acronyms: « CNIL », « Python ») that no
 *   retrieved passage holds, known to the corpus or not. A question about a named thing is not
 *   answered with confidence by passages that never name it: « the CNIL's IBAN » matched the Faker
 *   IBAN example, « Python 3.12 on Ubuntu » a page naming Ubuntu but not Python.
 * - `liveData`: the question asks about the world as it is now (« demain », « aujourd’hui »,
 *   « tomorrow », « next Tuesday »): documentation is not a live source, whatever its examples say
 *   (the MCP weather server's `weather://forecast/{city}` matches « weather forecast for Paris
 *   tomorrow » word for word).
 */
const LIVE_DATA = new RegExp(
  [
    'today', 'tomorrow', 'tonight', 'yesterday', 'right now',
    'this (?:week|weekend|month|year)', 'next (?:week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)',
    'aujourd.hui', 'demain', 'hier', 'ce soir', 'ce week-end', 'cette semaine', 'ce mois-ci',
    '(?:semaine|mois|annee) prochaine?', 'prochaine version',
  ].map((w) => `\\b${w}\\b`).join('|'),
);

export interface WordDetail {
  word: string;
  df: number;
  weight: number;
}

const NAME = /(?<=[\s'’(«"])\p{Lu}[\p{L}\p{N}-]*/gu;

/** Capitalised words of a question, not first in it (names, acronyms: « CNIL », « Python »), folded. */
export const capitalisedNames = (question: string): string[] => [...new Set((question.match(NAME) ?? []).map((n) => fold(n)))];

/** The cues above; the learned probability is added by actors/retrieval/confidence.ts. */
export type LexicalCues = Omit<RelevanceSignals, 'inScope'>;

/** Which query words one retrieved passage holds (LexicalIndex.explain). */
export type PassageWords = ReadonlyArray<{ word: string; matched: boolean }>;

/**
 * `words`: the question's words against the best passage; `retrieved`: the same for every passage
 * retrieved (defaults to none, which makes every name "not retrieved" only if it is a query word).
 */
export function relevanceSignals(question: string, words: WordDetail[], retrieved: PassageWords[] = []): LexicalCues {
  const total = words.reduce((n, w) => n + w.weight, 0);
  const unseen = words.filter((w) => w.df === 0);
  const unseenShare = total > 0 ? unseen.reduce((n, w) => n + w.weight, 0) / total : 0;
  const unseenWords = new Set(unseen.map((w) => w.word));
  const capitalised = capitalisedNames(question);
  const names = capitalised.filter((n) => unseenWords.has(n));
  const queryWords = new Set(words.map((w) => w.word));
  const namesNotRetrieved = capitalised.filter((n) => queryWords.has(n) && !retrieved.some((p) => p.some((w) => w.word === n && w.matched)));
  const liveData = LIVE_DATA.test(fold(question).replace(/[’']/g, "'"));
  return { unseenShare: Math.round(unseenShare * 1000) / 1000, unknownNames: names, namesNotRetrieved, liveData };
}
