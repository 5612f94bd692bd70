import { words } from '../retrieval/analyze.js';
import { stem } from '../retrieval/stem.js';
import { fold } from '../../machines/textFold.js';
import { isStopWord } from '../retrieval/stopwords.js';
import type { Fact } from './subjects.js';

/**
 * What a candidate's turn asks, read against the subject's fact sheet (docs/t2-live.md#the-offline-interlocutor):
 * a fact of the sheet, nothing the sheet knows (`none`), a greeting, a closing, or nothing precise
 * (`vague`). Shared by the offline interlocutor, which answers with it, and the rule monitor, which
 * checks that a reply relates to the question it follows. Deterministic: folded words, French
 * Snowball stems, and per-fact weights — a word of the fact's keywords or theme weighs KEYWORD, a
 * word of its answer 1, divided by how many facts share it, and halved when the word belongs
 * to the subject itself (« club », « voiture », « atelier »: every fact is about it).
 */

export type Intent =
  | { kind: 'fact'; fact: Fact; score: number }
  | { kind: 'none' | 'vague' | 'greeting' | 'closing' };

const KEYWORD = 3;
const BACKGROUND = 0.5;
/** A fact must score at least this to be the answer: one keyword alone, or two answer words. */
export const MIN_SCORE = 1.5;
/** Below this, a fact already given is not "asked again" (a weaker match is another question). */
const AGAIN_SCORE = 3;

/** Words that say how the question is asked, not what about: they never point at a fact. */
const FORM_WORDS = new Set(
  `bonjour bonsoir salut allo oui non merci monsieur madame mademoiselle voudrais voudrait veux voulais aimerais souhaite souhaiterais
  savoir connaitre demander demande renseigner renseignement renseignements information informations question questions
  pouvez pourriez pourrais peux possible excusez pardon svp plait dire redire repeter rappeler euh bien alors bon ben ok accord daccord
  exactement aussi encore deja egalement vraiment quoi quel quels quelle quelles comment ou
  il y a cest ya fait faut font chose choses marche fonctionne passe deroule`.split(/\s+/),
);

const GREETING = /\b(?:bonjour|bonsoir|salut|allo|rebonjour)\b/;
const CLOSING = /\b(?:merci|remercie|au revoir|bonne (?:journee|soiree|fin de journee|continuation)|a bientot|a la prochaine)\b/;
const ASKS_AGAIN = /\b(?:repeter|redire|rappeler|deja|encore une fois|pas (?:bien )?compris|pardon)\b/;
/** A request for something precise, even without a question mark (« je voudrais savoir le prix »). */
const REQUEST = /\?|\b(?:savoir|connaitre|combien|quand|quel|quelle|quels|quelles|comment|pourquoi|est-ce)\b|\bou\b.*\?/;

/** « combien coûte » asks a price; « combien de personnes » a number: the price cue is the former only. */
const PRICE_CUE = /\b(?:prix|cout\w*|tarifs?|cher|chere|payer|paie|paye|dollars?|montant|combien)\b/;
const MONEY = /\bdollars?\b|\bcents?\b/;

/**
 * The question's frame, not its topic: « combien de » asks a number (the noun after it says of
 * what), « compris dans le prix » asks what is included, not the price.
 */
function dropFrames(folded: string): string {
  return folded.replace(/[’']/g, ' ').replace(/\bcombien\s+(?:de|d)\b/g, ' ').replace(/\bdans (?:le|les) prix\b/g, ' ');
}

/** Content stems of a text (stop words and question-form words dropped). */
function stems(text: string): string[] {
  const out: string[] = [];
  for (const w of words(dropFrames(fold(text)))) {
    if (w.length < 2 || isStopWord(w) || FORM_WORDS.has(w)) continue;
    out.push(stem(w, 'fr'));
  }
  return out;
}

export interface SheetIndex {
  facts: Fact[];
  /** Per fact: stem → weight (KEYWORD for keywords and theme, 1 for answer words). */
  weights: Array<Map<string, number>>;
  /** How many facts carry each stem as a keyword (`kdf`) and at all (`df`). */
  kdf: Map<string, number>;
  df: Map<string, number>;
  background: Set<string>;
  money: boolean[];
  /** Per fact: the stems of its answer (to recognise it in a reply). */
  answers: Array<Set<string>>;
}

export function indexSheet(facts: Fact[], background = ''): SheetIndex {
  const weights = facts.map((f) => {
    const m = new Map<string, number>();
    for (const s of stems(f.answer)) m.set(s, 1);
    for (const s of stems([...f.keywords, f.theme].join(' '))) m.set(s, KEYWORD);
    return m;
  });
  const df = new Map<string, number>();
  const kdf = new Map<string, number>();
  for (const m of weights) {
    for (const [s, w] of m) {
      df.set(s, (df.get(s) ?? 0) + 1);
      if (w === KEYWORD) kdf.set(s, (kdf.get(s) ?? 0) + 1);
    }
  }
  return {
    facts, weights, kdf, df,
    background: new Set(stems(background)),
    money: facts.map((f) => MONEY.test(fold(f.answer))),
    answers: facts.map((f) => new Set(stems(f.answer))),
  };
}

/**
 * How strongly the question points at each fact (same order as the sheet): `words` from the
 * words they share, `score` with the price cue added.
 */
function factScores(index: SheetIndex, question: string): Array<{ words: number; score: number }> {
  const folded = dropFrames(fold(question));
  const qs = new Set(stems(question));
  const priceCue = PRICE_CUE.test(folded);
  return index.weights.map((m, i) => {
    let s = 0;
    for (const q of qs) {
      const w = m.get(q);
      if (!w) continue;
      // Shared by several facts, a word points less at each: a keyword is divided among the facts
      // having it as a keyword, an answer word among all the facts where it occurs.
      const shared = (w === KEYWORD ? index.kdf.get(q) : index.df.get(q)) ?? 1;
      s += (w / shared) * (index.background.has(q) ? BACKGROUND : 1);
    }
    // A price question leans to the facts that state an amount (« c'est combien ? » has no topic word).
    return { words: s, score: s + (priceCue && index.money[i] ? MIN_SCORE : 0) };
  });
}

export function scoreFacts(index: SheetIndex, question: string): number[] {
  return factScores(index, question).map((f) => f.score);
}

/** « Vous pouvez répéter… », « c'est combien déjà ? »: the candidate asks for a fact again. */
export function asksAgain(question: string): boolean {
  return ASKS_AGAIN.test(fold(question).replace(/[’']/g, ' '));
}

function hasContent(question: string): boolean {
  return stems(question).length > 0;
}

/**
 * The intent of one candidate turn. `given` holds the facts already answered: one of them comes
 * back only when asked again (a strong match, or « vous pouvez répéter… »), otherwise the next
 * fact the question points at, or `none`.
 */
export function classify(index: SheetIndex, question: string, given: ReadonlySet<Fact> = new Set()): Intent {
  const folded = fold(question).replace(/[’']/g, ' ');
  const request = REQUEST.test(folded);
  if (CLOSING.test(folded) && !folded.includes('?')) return { kind: 'closing' };
  if (GREETING.test(folded) && !request) return { kind: 'greeting' };
  const ranked = factScores(index, question)
    .map((f, i) => ({ ...f, fact: index.facts[i]! }))
    .filter((r) => r.score >= MIN_SCORE)
    .sort((a, b) => b.score - a.score);
  const again = asksAgain(question);
  // « Et pour le sauna, c'est quel prix ? »: a word the sheet does not know makes it another
  // question — not the price asked again, nor any other amount reached by the price cue alone.
  const unknown = stems(question).some((q) => !index.df.has(q) && !index.background.has(q));
  for (const r of ranked) {
    if (unknown && r.words === 0) continue;
    if (!given.has(r.fact) || again || (r.score >= AGAIN_SCORE && !unknown)) return { kind: 'fact', fact: r.fact, score: r.score };
  }
  if (GREETING.test(folded)) return { kind: 'greeting' };
  return hasContent(question) ? { kind: 'none' } : { kind: 'vague' };
}

/**
 * The fact a reply gives, if any: the fact whose answer words the reply carries most, when it
 * carries at least half of them (a model paraphrases; the offline interlocutor quotes).
 */
export function factOfReply(index: SheetIndex, reply: string): Fact | undefined {
  const rs = new Set(stems(reply));
  let best: Fact | undefined;
  let bestShare = 0.5;
  index.answers.forEach((answer, i) => {
    if (answer.size === 0) return;
    let shared = 0;
    for (const s of answer) if (rs.has(s)) shared++;
    const share = shared / answer.size;
    if (share >= bestShare) {
      best = index.facts[i];
      bestShare = share;
    }
  });
  return best;
}
