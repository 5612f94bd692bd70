import { classify, factOfReply, indexSheet, MIN_SCORE, scoreFacts, asksAgain, type SheetIndex } from './questionMatcher.js';
import type { FactSheetSubject } from './factSheetResponder.js';

/**
 * Rule monitor: each interlocutor reply's transcript is checked against the §3 rules that text can
 * show, and — given the subject's fact sheet — against the question it follows: a fact given to a
 * greeting or a goodbye, or unrelated to the question, is off topic; a fact given again without
 * being asked again is a repetition. The spec admits the model gives no guarantee (TD-22); palabre
 * measures it and the report carries counts and examples.
 */

export type RuleId =
  | 'no_question' // §3.7: no question, no "?" (the §2.4 relance is counted apart)
  | 'length_15_25' // §3.4: 15 to 25 words
  | 'no_list' // §3.11: no list nor numbered structure
  | 'no_closing_formula' // §3.10: no closing politeness formula
  | 'no_ai_mention' // §3.12: never says it is an AI or a model
  | 'french_only' // §2.1 / §3.1: French only
  | 'not_first_to_speak' // §2.7 / §3.13: never speaks first
  | 'answers_question' // §2.3: answers the question asked (no fact for a greeting, none unrelated)
  | 'no_repeat'; // §2.3: a fact already given comes back only when asked again

const RULES: Record<RuleId, string> = {
  no_question: '§3 règle 7 — aucune question, aucun point d’interrogation',
  length_15_25: '§3 règle 4 — réponses de 15 à 25 mots',
  no_list: '§3 règle 11 — jamais de listes ni de structure numérotée',
  no_closing_formula: '§3 règle 10 — aucune formule de politesse de fin',
  no_ai_mention: '§3 règle 12 — ne mentionne jamais être une IA ou un modèle',
  french_only: '§2 règle 1, §3 règle 1 — uniquement en français',
  not_first_to_speak: '§2 règle 7, §3 règle 13 — ne parle pas en premier',
  answers_question: '§2 règle 3 — répond à la question posée, pas à côté',
  no_repeat: '§2 règle 3 — ne redonne pas une information déjà donnée sans qu’on la redemande',
};

export interface RuleCount {
  rule: RuleId;
  label: string;
  violations: number;
  /** Up to 3 offending replies (truncated). */
  examples: string[];
}

export interface RuleReport {
  replies: number;
  /** Replies with no violation at all. */
  compliant: number;
  /** "Avez-vous d'autres questions ?" — the one relance §2.4 allows; counted, not a violation. */
  allowedRelance: number;
  rules: RuleCount[];
}

/** The §2.4 relance, the only question the interlocutor may ask. */
const ALLOWED_RELANCE = /^\s*avez-vous d['’]autres questions\s*\?\s*$/i;
const CLOSING = [
  /n['’]h[ée]sitez pas/i,
  /j['’]esp[èe]re que (?:ça|cela) vous aide/i,
  /qu['’]en pensez-vous/i,
  /\bet vous\s*\?/i,
  /bonne (?:journée|soirée|fin de journée)/i,
  /au plaisir/i,
  /je reste à (?:votre )?disposition/i,
  /avez-vous d['’]autres questions/i,
];
const AI_MENTION = /\b(?:(?:une|l['’])\s*ia\b|intelligence artificielle|mod[èe]le de langage|\bmod[èe]le\b (?:d['’]ia|linguistique)|assistant virtuel|je suis un (?:robot|programme|mod[èe]le)|chatbot|language model|gemini)/i;
/** Upper case only: « j'ai », « n'ai » are French verbs. */
const AI_ACRONYM = /\bAI\b/;
const LIST = /(?:^|\n)\s*(?:[-*•]|\d+[.)])\s+/;
const INLINE_ENUM = /\b(?:premi[èe]rement|deuxi[èe]mement|troisi[èe]mement)\b/i;

/** Very common English / Spanish function words: a reply where they dominate is not French. */
const FOREIGN = new Set(['the', 'and', 'is', 'are', 'you', 'your', 'with', 'this', 'that', 'have', 'it', 'of', 'to', 'for', 'what', 'el', 'los', 'las', 'por', 'con', 'y']);
const FRENCH = new Set(['le', 'la', 'les', 'de', 'des', 'du', 'un', 'une', 'et', 'est', 'vous', 'je', 'il', 'elle', 'nous', 'à', 'au', 'aux', 'pour', 'par', 'sur', 'avec', 'dans', 'en', 'pas', 'ne', 'qui', 'que', 'ce', 'c’est', "c'est", 'sont', 'mais', 'ou', 'se', 'sa', 'son', 'ses', 'leur', 'plus']);

function words(text: string): string[] {
  return text
    .replace(/[«»“”"(),;:!?.…]/g, ' ')
    .split(/\s+/)
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
}

function isFrench(text: string): boolean {
  const ws = words(text.toLowerCase());
  if (ws.length === 0) return true;
  let fr = 0;
  let foreign = 0;
  for (const w of ws) {
    if (FRENCH.has(w)) fr++;
    else if (FOREIGN.has(w)) foreign++;
  }
  return !(foreign >= 2 && foreign > fr);
}

/** The rules one reply breaks (the speaking-first rule is judged by the session, not the text). */
export function checkReply(text: string): RuleId[] {
  const broken: RuleId[] = [];
  const trimmed = text.trim();
  if (ALLOWED_RELANCE.test(trimmed)) return broken;
  if (trimmed.includes('?') || trimmed.includes('？')) broken.push('no_question');
  const n = words(trimmed).length;
  if (n < 15 || n > 25) broken.push('length_15_25');
  if (LIST.test(text) || INLINE_ENUM.test(trimmed)) broken.push('no_list');
  if (CLOSING.some((re) => re.test(trimmed))) broken.push('no_closing_formula');
  if (AI_MENTION.test(trimmed) || AI_ACRONYM.test(trimmed)) broken.push('no_ai_mention');
  if (!isFrench(trimmed)) broken.push('french_only');
  return broken;
}

export class RuleMonitor {
  private replies = 0;
  private compliant = 0;
  private relance = 0;
  private readonly counts = new Map<RuleId, RuleCount>();
  /** What the candidate said since the last reply. */
  private question: string[] = [];
  private readonly given = new Set<number>();
  private index: SheetIndex | undefined;

  /** `subject` gives the session's fact sheet once loaded; without it only the text rules are checked. */
  constructor(private readonly subject?: () => FactSheetSubject | undefined) {
    for (const [rule, label] of Object.entries(RULES) as Array<[RuleId, string]>) {
      this.counts.set(rule, { rule, label, violations: 0, examples: [] });
    }
  }

  private hit(rule: RuleId, example: string): void {
    const c = this.counts.get(rule)!;
    c.violations++;
    if (c.examples.length < 3) c.examples.push(example.length > 200 ? `${example.slice(0, 197)}…` : example);
  }

  /** One complete candidate turn: the question the next reply answers. */
  candidate(text: string): void {
    if (text.trim()) this.question.push(text.trim());
  }

  /** One complete interlocutor reply; `candidateSpokeBefore` false means it spoke first. */
  reply(text: string, candidateSpokeBefore: boolean): RuleId[] {
    const trimmed = text.trim();
    if (!trimmed) return [];
    this.replies++;
    if (ALLOWED_RELANCE.test(trimmed)) this.relance++;
    const broken = checkReply(trimmed);
    if (!candidateSpokeBefore) broken.push('not_first_to_speak');
    broken.push(...this.topic(trimmed, this.question.join(' ')));
    this.question = [];
    for (const rule of broken) this.hit(rule, trimmed);
    if (broken.length === 0) this.compliant++;
    return broken;
  }

  /** Does the reply answer the question it follows, without repeating a fact unasked? */
  private topic(reply: string, question: string): RuleId[] {
    const sheet = this.subject?.();
    if (!sheet || sheet.factSheet.length === 0 || !question) return [];
    this.index ??= indexSheet(sheet.factSheet, sheet.background);
    const fact = factOfReply(this.index, reply);
    if (!fact) return [];
    const i = this.index.facts.indexOf(fact);
    const broken: RuleId[] = [];
    const intent = classify(this.index, question).kind;
    // Any word or price cue in common is enough: a model may answer a question no keyword names.
    const related = scoreFacts(this.index, question)[i]!;
    if (intent === 'greeting' || intent === 'closing' || related === 0) broken.push('answers_question');
    if (this.given.has(i) && related < MIN_SCORE && !asksAgain(question)) broken.push('no_repeat');
    this.given.add(i);
    return broken;
  }

  report(): RuleReport {
    return { replies: this.replies, compliant: this.compliant, allowedRelance: this.relance, rules: [...this.counts.values()].map((c) => ({ ...c, examples: [...c.examples] })) };
  }
}
