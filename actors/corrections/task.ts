import type { TranscriptTurn } from '../../prompts/corrections/tasks.js';
import { candidateText, countWords } from './production.js';
import { type OralSubject, type Production } from '../../prompts/corrections/tasks.js';
import { WORD_LIMITS } from './report.js';

/**
 * What the candidate did with the task, measured on the production alone (no model): for the oral
 * role-play, the questions asked, the information obtained, how much they spoke and how they
 * followed up on the answers; for the other oral tasks, how much they spoke and whether it was on
 * the instruction's topic; for the written tasks, the task's word limits and whether the text
 * answers the instruction. The grade (scoring.ts) builds on these measures.
 */

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** Function words and the instruction's own vocabulary: sharing them says nothing about the topic. */
const STOP = new Set(`au aux avec ce ces cet cette dans de des du elle elles en et eux il ils je la le les leur leurs lui ma mais me mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous y à été être avoir ai as avons avez ont est sont était étaient fait faire faut peux peut pouvez voudrais veux vais va bien très plus aussi alors donc oui non merci bonjour revoir bonne journée madame monsieur accord ok euh voilà ça cela ceci c est-ce quoi comme quand comment combien quel quelle quels quelles tout tous toute toutes autre autres même chez si car puis encore déjà là ici avant après sans entre sous vers aujourd hui dit dire savoir connaître pouvoir vouloir informations information renseignements question questions poser appelle appeler appelez téléphonez contactez écrivez rédigez donnez expliquez racontez pensez message texte article lettre mots opinion arguments exemples consigne sujet vous-même prendre votre décision obtenir nécessaires utiles souhaitez voulez avez vu`.split(/\s+/));

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[’`]/g, "'");

/** Content words as comparison stems: accents folded, elided article dropped, first five letters. */
export function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.match(WORD) ?? []) {
    const w = raw.toLowerCase().replace(/^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)['’]/, '');
    if (w.length < 3 || STOP.has(w) || /^\d+$/.test(w)) continue;
    out.add(fold(w).slice(0, 5));
  }
  return out;
}

const NUMBER = /\d|\b(?:un|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|quinze|vingt|trente|quarante|cinquante|soixante|cent|cents|mille)\b/i;
const REFUSAL = /pas cette information|je ne (?:sais|peux) pas|aucune information|ne (?:figure|dispose) pas|je vous écoute|allez-y|bien sûr[.!]?$|^(?:d'accord|très bien|je comprends|tout à fait)[.!]?$/i;
const QUESTION_START = /^(?:(?:et|alors|donc|mais|enfin|aussi|ensuite|d'abord|dernière question|autre question)[ ,:]+)*(?:est-ce|qu'est-ce|qu'en|combien|quel|quelle|quels|quelles|(?:quand|où|comment|pourquoi) (?:est-ce|[\p{L}]+-(?:vous|t-il|t-elle|t-on|il|elle|ils|elles|on|je)\b)|à quel|à quelle|à partir de quand|de quel|de quelle|pour combien|jusqu'à quel|pourriez|pouvez|pourrais|pourrait|puis-je|peut-on|peut-il|auriez|avez-vous|y a-t-il|y aurait-il|faut-il|dois-je|serait-il|existe-t-il|c'est combien|c'est quoi|c'est quel|c'est quand|est-il|sont-ils|s'agit-il)\b/iu;
const INDIRECT = /\b(?:je voudrais|j'aimerais|je souhaiterais|je souhaite|j'ai besoin de|pourriez-vous|pouvez-vous|dites-moi)\b[^.?!]*\b(?:savoir|connaître|me dire|m'indiquer|me préciser|me décrire|m'expliquer)\b/i;
const INVERSION = /\b[\p{L}]+-(?:vous|t-il|t-elle|t-on|il|elle|ils|elles|on|je)\b/iu;
/** Taking up the interlocutor's answer: checking, reformulating, drawing a consequence. */
const REFORMULATION = /\b(?:si je comprends bien|si j'ai bien compris|autrement dit|c'est-à-dire|vous voulez dire|c'est bien ça|c'est bien cela|c'est ça|donc|alors)\b/i;

/**
 * Sentences of a turn: at a full stop, a question mark or a line break, and — since a speech
 * recogniser may leave the punctuation out — before a capital letter inside the turn.
 */
function sentences(text: string): string[] {
  return text.replace(/[’]/g, "'").split(/(?<=[.?!…])\s+|\n+|\s+(?=[A-ZÀÂÉÈÊÎÔÛÇ][a-zàâéèêëîïôûüç'])/).map((s) => s.trim()).filter((s) => countWords(s) > 0);
}
/** Question words that ask wherever they stand in a sentence. */
const ASKS_ANYWHERE = /\b(?:est-ce que|est-ce qu'|combien|quel|quelle|quels|quelles)\b/i;

/** A sentence that asks: a question mark, an interrogative opening, an inversion, or an indirect question. */
export function isQuestion(sentence: string): boolean {
  const s = sentence.trim();
  if (s.endsWith('?')) return true;
  const inverted = INVERSION.exec(s.replace(/\brendez-vous\b/gi, ''));
  return QUESTION_START.test(s) || INDIRECT.test(s) || ASKS_ANYWHERE.test(s) || (inverted !== null && !/^(?:allez|dites|voilà|voici|excusez|écoutez)/i.test(inverted[0]));
}

const overlap = (a: Set<string>, b: Set<string>) => {
  let n = 0;
  for (const x of a) if (b.has(x)) n += 1;
  return n;
};

/** An interlocutor turn that gives information (not a greeting, an invitation to go on or a refusal): a figure, or two content words. */
function informative(text: string): boolean {
  const t = text.trim();
  if (REFUSAL.test(t) || DEFLECTION.test(t)) return false;
  return NUMBER.test(t) || stems(t).size >= 2;
}

/** Questions about the conversation itself, not the subject. */
const META = /\b(?:répéter|répétez|je (?:ne )?comprends pas|vous allez bien|comment allez-vous|ça va|m'entendez|vous entendez|poser (?:des|quelques|une|deux) questions?|je peux commencer|c'est bien (?:le|la|l'agence|le club))\b/i;
/** The interlocutor steering back to the subject: the question was off it. */
const DEFLECTION = /je ne peux pas (?:vous )?répondre|je suis là pour|revenons|ce n'est pas le sujet|parlons plutôt|concernant (?:le|la|l')\s*\p{L}+ uniquement/iu;

/** Consecutive turns of one speaker are one turn: a speech recogniser splits an utterance at each pause. */
function mergeTurns(turns: readonly TranscriptTurn[]): TranscriptTurn[] {
  const out: TranscriptTurn[] = [];
  for (const t of turns) {
    const text = t.text.trim();
    if (!text) continue;
    const last = out.at(-1);
    if (last && last.speaker === t.speaker) last.text = `${last.text} ${text}`;
    else out.push({ ...t, text });
  }
  return out;
}

export interface OralTaskMeasures {
  /** Words and turns of the candidate. */
  mots: number;
  tours: number;
  /** Seconds from the first to the last turn of the dialogue (0 without timestamps). */
  dureeS: number;
  /** Candidate turns that ask something. */
  questions: number;
  /** Of those, about the subject (its facts, its instruction, or answered with information). */
  questionsPertinentes: number;
  /** Facts of the subject the dialogue obtained; `faitsTotal` is the sheet's size (6 without a sheet). */
  faitsObtenus: number;
  faitsTotal: number;
  /** Turns that take up the previous answer: follow-up question, reformulation, reaction. */
  relances: number;
  /** Candidate words per turn. */
  motsParTour: number;
}

/** Expected size of a fact sheet when none is given (the seeded subjects have 6 to 8 facts). */
const DEFAULT_FACTS = 6;

/**
 * Small talk: the weather, the interlocutor's private life, tastes. Asking about it is no question of
 * the subject, and an answer about it is no information obtained.
 */
const SMALL_TALK = /\b(?:il fait (?:\p{L}+ )?(?:beau|chaud|froid|gris|doux|bon)|météo|il pleut|il neige|vous aimez (?:le|la|les) (?:cinéma|musique|sport|films?|lecture|voyages?)|votre plat|vos vacances|votre week-end|le week-end|vous habitez|vous êtes d[e']|votre prénom|vous vous appelez|vos enfants|votre famille|vous travaillez depuis|vous aimez votre travail|j'adore|je déteste)\b/iu;

const withNumbers = (s: Set<string>, text: string) => new Set([...s, ...(text.match(/\d+(?:[ ,.]\d+)*/g) ?? []).map((n) => n.replace(/\D/g, ''))]);

export function oralMeasures(transcript: readonly TranscriptTurn[], sujet?: OralSubject, consigne = ''): OralTaskMeasures {
  const turns = mergeTurns(transcript);
  const cand = turns.filter((t) => t.speaker === 'candidate');
  const mots = cand.reduce((n, t) => n + countWords(t.text), 0);
  const times = turns.map((t) => t.atMs).filter((x): x is number => typeof x === 'number');
  const dureeS = times.length >= 2 ? Math.round((Math.max(...times) - Math.min(...times)) / 1000) : 0;

  const facts = (sujet?.faits ?? []).map((f) => ({
    keys: new Set([...f.keywords.flatMap((k) => [...stems(k)])]),
    answer: stems(f.answer),
  }));
  /** The subject's vocabulary: the instruction, and the fact sheet when there is one. */
  const topic = stems([consigne, ...(sujet?.faits ?? []).flatMap((f) => [f.theme, ...f.keywords])].join(' '));
  const obtained = new Set<number>();
  const heard: Set<string>[] = [];
  const askedBefore: Set<string>[] = [];
  let questions = 0;
  let pertinent = 0;
  let relances = 0;
  const factsIn = (s: Set<string>) => facts.map((f, k) => (f.answer.size && overlap(f.answer, s) / f.answer.size >= 0.5 ? k : -1)).filter((k) => k >= 0);
  // Two answers give the same information when they share most of their words and figures, counted
  // on the longer one: « 49 dollars » and « 480 dollars » are two answers.
  const sameAnswer = (a: Set<string>, b: Set<string>) => overlap(a, b) / Math.max(1, a.size, b.size) >= 0.6;
  const sameAs = (a: Set<string>, b: Set<string>, share: number) => overlap(a, b) / Math.max(1, Math.min(a.size, b.size)) >= share;

  turns.forEach((turn, i) => {
    if (turn.speaker === 'interlocutor') {
      for (const k of factsIn(stems(turn.text))) obtained.add(k);
      return;
    }
    const said = sentences(turn.text);
    const asked = said.filter(isQuestion);
    const next = turns.slice(i + 1).find((t) => t.speaker === 'interlocutor');
    const prev = turns.slice(0, i).reverse().find((t) => t.speaker === 'interlocutor');
    const answered = next ? informative(next.text) : false;
    // Without a question mark, a question asked by intonation shows in the answer it got: the
    // interlocutor of the role-play gives information only when asked.
    if (asked.length || answered) {
      questions += 1;
      const q = stems((asked.length ? asked : said).join(' '));
      const matched = facts.map((f, k) => (overlap(q, f.keys) > 0 ? k : -1)).filter((k) => k >= 0);
      const a = next ? stems(next.text) : new Set<string>();
      const newFacts = answered ? factsIn(a).filter((k) => !obtained.has(k)) : [];
      // A question is on the subject when it names the subject (the instruction's or the sheet's
      // words) or when it gets information in answer — small talk and the weather are neither.
      const chat = SMALL_TALK.test((asked.length ? asked : said).join(' '));
      const subjectAnswer = answered && !chat && !SMALL_TALK.test(next!.text);
      const onSubject = !chat && (matched.length > 0 || overlap(q, topic) > 0 || subjectAnswer);
      const meta = asked.length > 0 && asked.every((x) => META.test(x)) && matched.length === 0;
      const deflected = next !== undefined && DEFLECTION.test(next.text) && matched.length === 0;
      // Asking again for what was already obtained adds nothing to the task.
      const repeated = facts.length
        ? matched.length > 0 && matched.every((k) => obtained.has(k)) && newFacts.length === 0
        : answered ? heard.some((h) => sameAnswer(h, withNumbers(a, next!.text))) : q.size > 0 && askedBefore.some((b) => sameAs(b, q, 0.8));
      if (onSubject && !meta && !deflected && !repeated) pertinent += 1;
      if (q.size) askedBefore.push(q);
      if (answered) {
        // A model interlocutor paraphrases the sheet: the fact the question pointed at counts as obtained.
        if (onSubject && !deflected) for (const k of matched) obtained.add(k);
        if (!facts.length && subjectAnswer && !heard.some((h) => sameAnswer(h, withNumbers(a, next!.text)))) heard.push(withNumbers(a, next!.text));
      }
    }
    if (prev && informative(prev.text) && i > 1) {
      const echo = overlap(stems(said.join(' ')), stems(prev.text)) > 0 || NUMBER.test(said[0] ?? '') && !isQuestion(said[0] ?? '');
      // « Parfait. À quelle heure… ? »: a reaction to the answer before the next question.
      const reaction = asked.length > 0 && said.length > asked.length && !isQuestion(said[0]!);
      if (echo || reaction || REFORMULATION.test(turn.text)) relances += 1;
    }
  });

  return {
    mots,
    tours: cand.length,
    dureeS,
    questions,
    questionsPertinentes: pertinent,
    faitsObtenus: facts.length ? obtained.size : Math.min(heard.length, DEFAULT_FACTS),
    faitsTotal: facts.length || DEFAULT_FACTS,
    relances,
    motsParTour: cand.length ? Math.round((mots / cand.length) * 10) / 10 : 0,
  };
}

export interface WrittenTaskMeasures {
  mots: number;
  min: number;
  max: number;
  /** Content stems of the instruction found in the text, and how many the instruction has. */
  motsConsigneRepris: number;
  motsConsigne: number;
  /** Task 3: documents the instruction gives (0 when it gives none) and those the text takes up. */
  documents: number;
  documentsRepris: number;
}

/**
 * The documents of a task-3 instruction: the blocks after the first blank line (the form
 * `consigneText` gives). A document is taken up when the text shares two of the content words that
 * are its own (in neither the instruction nor the other document).
 */
function documentsTakenUp(consigne: string, text: Set<string>): { documents: number; documentsRepris: number } {
  const blocks = consigne.split(/\n\s*\n/).map((b) => b.trim()).filter(Boolean);
  if (blocks.length < 3) return { documents: 0, documentsRepris: 0 };
  const [instruction, ...docs] = blocks.map((b) => stems(b));
  let repris = 0;
  docs.forEach((doc, i) => {
    const own = [...doc].filter((x) => !instruction!.has(x) && !docs.some((o, j) => j !== i && o.has(x)));
    if (own.filter((x) => text.has(x)).length >= 2) repris += 1;
  });
  return { documents: docs.length, documentsRepris: repris };
}

export function writtenMeasures(p: Extract<Production, { epreuve: 'EE' }>): WrittenTaskMeasures {
  const { min, max } = WORD_LIMITS[p.tache];
  const c = stems(p.consigne);
  const t = stems(p.texte);
  return { mots: countWords(p.texte), min, max, motsConsigneRepris: overlap(c, t), motsConsigne: c.size, ...(p.tache === 'EE_T3' ? documentsTakenUp(p.consigne, t) : { documents: 0, documentsRepris: 0 }) };
}

/** Candidate words, for the oral tasks without a dialogue to measure (T1, T3). */
export function spokenWords(p: Production): number {
  return countWords(candidateText(p));
}
