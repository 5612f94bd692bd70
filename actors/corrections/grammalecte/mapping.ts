import type { Critere } from '../../../prompts/taxonomy.js';
import { CODE_CRITERE } from '../../../prompts/taxonomy.js';
import { atSentenceStart, type DetectorContext, type Finding } from '../detectors/context.js';
import { cannotBeSubjectOfA, decideAttribute, decideNounPhrase, isPluralNounOnly, isPrepositionA } from './agreement.js';
import { copulaFindings } from './copula.js';
import { isLikelyName } from './names.js';
import type { CheckResult, GrammarError, SpellingError } from './sidecar.js';
import { subjunctiveFindings } from './subjunctive.js';

/**
 * Grammalecte's rules → the closed taxonomy (prompts/taxonomy.source.fr.md), for the offline
 * checker (docs/corrections.md#the-offline-checker-grammalecte--built-in-detectors).
 *
 * Grammalecte names each error with a rule id (`g3__gn_les_2m__b1_a1_1`) and a family (`sType`:
 * conj, gn, ppas, conf…). Only the families whose precision was measured on the tuning part of
 * the labelled set (test/corrections/eval/tune.json, see docs/corrections.md) are kept; the
 * typographic ones (apostrophes, non-breaking spaces, units, commas, redundancies) are dropped:
 * they are not learner errors an examiner counts.
 */

interface Mapped {
  code: string;
  description?: string;
}

/** Families that concern writing only: off for transcripts (speech recognition writes them). */
const WRITTEN_ONLY = new Set(['maj', 'tu', 'inte', 'eleu', 'spell']);

/** Rule-name fragments that name a plural determiner: a noun left singular is a number error. */
const PLURAL_DET = /gn_(les|des|det_epi_plur|nombre_lettres|ces|mes|tes|ses|nos|vos|leurs|plusieurs|quelques)_1m/;

/** The taxonomy code of one Grammalecte error, or undefined to drop it. */
function mapRule(e: GrammarError, flagged: string): Mapped | undefined {
  const rule = e.rule;
  switch (e.type) {
    case 'conj':
      if (rule.includes('conf_non_verbe')) return { code: 'autre', description: 'Forme verbale incorrecte après un pronom (conjugaison)' };
      return { code: 'accord_sujet_verbe' };
    case 'gn':
      // Without the words' morphology (an older driver), the rule name decides; with it, decideNounPhrase in toFindings.
      if (rule.includes('quel_quelle')) return { code: 'accord_adjectif_nom' };
      if (/_1m/.test(rule)) return PLURAL_DET.test(rule) ? { code: 'nombre_incorrect' } : { code: 'accord_determinant_nom' };
      return { code: 'accord_adjectif_nom' };
    case 'ppas': {
      // « donner a manger »: Grammalecte flags « a » as avoir before an infinitive; it is the preposition.
      if (/^a$/i.test(flagged) && /écrivez “à”/.test(e.message)) return { code: 'confusion_homophones' };
      if (rule.includes('ppas_être_confusion') || (/er$/i.test(flagged) && e.suggestions.some((s) => /é(e|s|es)?$/.test(s)))) {
        return { code: 'autre', description: 'Infinitif employé à la place du participe passé' };
      }
      // « ouvrit » for « ouvert »: a wrong form, not an agreement (the suggestion is another word).
      const stem = (w: string) => w.toLowerCase().replace(/(e|s|es)$/, '');
      if (e.suggestions.length > 0 && !e.suggestions.some((s) => stem(s) === stem(flagged))) return { code: 'autre', description: 'Participe passé mal formé' };
      // Measured on the tuning part: this one fires on adjectives agreeing with another clause.
      if (rule.includes('ppas_être_accord_sing')) return undefined;
      if (e.words) return decideAttribute(e);
      if (rule.includes('avoir') || /é(e|s|es)?$/i.test(flagged)) return { code: 'accord_participe_passe' };
      return { code: 'accord_adjectif_nom' };
    }
    case 'conf':
      // Fires on the adverb after a mistaken « on » (« ils on pourtant »): the « on » is already reported.
      if (rule.includes('conf_on_non_verbe')) return undefined;
      if (rule.includes('auxiliaire')) return { code: 'autre', description: 'Mauvais auxiliaire (avoir / être) au passé composé' };
      // « notre arrivé », « goutté »: a near form of a longer word (an accent, a final e, a doubled
      // letter) is a spelling slip, not a homophone pair (a/à, ou/où, ces/ses stay homophones).
      if (isAccentSlip(flagged, e.suggestions)) return { code: 'faute_orthographe_courante' };
      return { code: 'confusion_homophones' };
    case 'vmode':
      if (/subjonctif/i.test(e.message)) return { code: 'subjonctif_absent' };
      if (/conditionnel/i.test(e.message)) return { code: 'conditionnel_absent' };
      return undefined;
    case 'infi':
      return { code: 'autre', description: 'Forme verbale : infinitif attendu' };
    case 'maj':
      return { code: 'majuscules_incorrectes' };
    case 'eleu':
      return { code: 'faute_orthographe_courante' };
    case 'tu':
    case 'inte':
      return { code: 'faute_orthographe_courante' };
    default:
      return undefined;
  }
}

const plain = (w: string) => w.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
const undouble = (w: string) => w.replace(/(\p{L})\1/gu, '$1');
export function isAccentSlip(flagged: string, suggestions: readonly string[]): boolean {
  if (flagged.length < 4 || /\s|['’]/.test(flagged)) return false;
  const a = plain(flagged);
  return suggestions.some((s) => { const b = plain(s); return a === b || `${a}e` === b || undouble(a) === undouble(b); });
}

/**
 * Correct words missing from Grammalecte's dictionary and seen flagged in correct texts
 * (`résidant` is the noun for a resident of a building, as opposed to `résident`).
 */
const SPELLING_ALLOW = new Set(['résidant', 'résidants', 'résidante', 'résidantes']);

const SENTENCE_START = /(^|[.!?…:]\s+|\n\s*|[«"]\s*)$/u;

function isProperNoun(ctx: DetectorContext, s: SpellingError): boolean {
  const { start, word } = s;
  if (!/^\p{Lu}/u.test(word)) return false;
  // Capitalised inside a sentence: a name (Reza, Wei, Gagnon). At a sentence start we cannot tell;
  // a one-line word (a signature, a greeting's name) is a name too.
  if (!SENTENCE_START.test(ctx.text.slice(Math.max(0, start - 4), start))) return true;
  // « Priya Sharma »: a first name followed by a capitalised family name.
  if (/^\s+\p{Lu}\p{Ll}/u.test(ctx.text.slice(start + word.length, start + word.length + 3))) return true;
  const lineEnd = ctx.text.indexOf('\n', start);
  const line = ctx.text.slice(start, lineEnd < 0 ? undefined : lineEnd).trim();
  if (line.split(/\s+/).length <= 3) return true;
  // Opening a sentence (« Reza ne nous a pas… »): a name unless Grammalecte suggests a near form of the same word.
  return s.suggestions !== undefined && isLikelyName(word, s.suggestions);
}

/** Determiners and subject pronouns: the other side of the disagreement is the word to quote. */
const FUNCTION_WORD = /^(?:le|la|les|l'|l’|un|une|des|du|mon|ma|mes|ton|ta|tes|son|sa|ses|ce|cet|cette|ces|notre|nos|votre|vos|leur|leurs|quel|quelle|quels|quelles|je|j'|j’|tu|il|elle|on|nous|vous|ils|elles)$/i;

const AGREEMENT_CODES = new Set(['accord_sujet_verbe', 'accord_adjectif_nom', 'accord_participe_passe', 'accord_determinant_nom', 'genre_incorrect', 'nombre_incorrect']);

const norm = (s: string) => s.toLowerCase().replace(/’/g, "'");

/** A preposition two or three words before: « … de ces valeurs a », « … à une collection de pages a ». */
const COMPLEMENT_BEFORE = /(?:^|[\s'’])(?:de|des|du|d['’]|aux)\s+(?:[\p{L}'’-]+\s+){0,2}[\p{L}'’-]+\s+$/u;

/**
 * « une soupe a manger », « quelque chose a boire ou à manger »: an indefinite noun, « a », an
 * infinitive with no object after it is a thing to do (« à »), not a passé composé missing its
 * participle (« mon fils a manger la soupe »).
 */
function thingToDo(text: string, start: number, end: number): boolean {
  return /(?:er|ir|re|oir)$/u.test(text.slice(start, end))
    && /(?:^|[\s'’])(?:un|une|des|quelque|rien|beaucoup|de|d['’])\s+(?:[\p{L}-]+\s+)?[\p{L}-]+\s+a\s+$/iu.test(text.slice(Math.max(0, start - 50), start))
    && !/^\s+(?:le|la|les|l['’]|un|une|des|du|mon|ma|mes|ton|ta|tes|son|sa|ses|notre|nos|votre|vos|leur|leurs|ce|cet|cette|ces)\b/iu.test(text.slice(end, end + 12));
}

/**
 * « j'habite a Montréal », « mon cousin a Toronto », « surtout a Noël »: « a » before a name inside
 * a sentence is « à » unless a pronoun or a name could be the subject of avoir (« il a Netflix »,
 * « Paul a Marie comme amie »), or the word before is not French or is avoir itself (« Software as a Service »).
 */
function beforePlaceOrFeast(text: string, at: number, previous: string): boolean {
  if (/^(?:il|elle|on|qui|ça|cela|ce|tout|chacun|personne)$/iu.test(previous) || /^\p{Lu}/u.test(previous)) return false;
  return /^\s+\p{Lu}\p{Ll}/u.test(text.slice(at + 1, at + 4)) && !atSentenceStart(text, at);
}

export interface MapOptions {
  oral: boolean;
  /** Lower-case words the built-in lexicon already reports (anglicisms, SMS words). */
  lexiconWords: ReadonlySet<string>;
}

/** Grammalecte's answer as detector findings, quotes taken verbatim from the text. */
export function toFindings(ctx: DetectorContext, result: CheckResult, opts: MapOptions): Finding[] {
  const out: Finding[] = [];
  const text = ctx.text;
  const push = (code: string, start: number, end: number, correction: string, detecteur: string, description?: string) => {
    const extrait = text.slice(start, end).trim();
    if (!extrait) return;
    const s = start + text.slice(start, end).indexOf(extrait);
    const critere: Critere = code === 'autre' ? 'competence_grammaticale' : CODE_CRITERE.get(code)!;
    // Both sides of one disagreement quoted over the same words: one error.
    if (AGREEMENT_CODES.has(code) && out.some((f) => AGREEMENT_CODES.has(f.code) && f.start < s + extrait.length && s < f.start + f.extrait.length)) return;
    out.push({ code, critere, extrait, correction, detecteur, start: s, ...(description ? { description } : {}) });
  };
  const grammar = result.grammar.filter((e) => e.end <= text.length && !(opts.oral && WRITTEN_ONLY.has(e.type)));
  for (const e of grammar) {
    const flagged = text.slice(e.start, e.end);
    // « ils nous on aidés »: the verb agreeing with the mistaken « on » is not a second error.
    if (e.type === 'conj' && e.rule.includes('conj_on') && grammar.some((g) => g.type === 'conf' && /^on$/i.test(text.slice(g.start, g.end)) && g.end <= e.start && e.start - g.end < 40)) continue;
    // A set phrase quoted in the text (« bonne année ») agrees with nothing around it.
    if (e.type === 'ppas' && /[«"“]\s*$/u.test(text.slice(Math.max(0, e.start - 3), e.start))) continue;
    if (e.type === 'ppas' && (isPrepositionA(e) || thingToDo(text, e.start, e.end))) {
      // The « a » before the infinitive is the error (the infinitive itself is right).
      const a = /\ba(\s+)$/u.exec(text.slice(Math.max(0, e.start - 4), e.start));
      const aStart = e.start - (a ? a[0].length : 0);
      if (a && !out.some((f) => f.start === aStart)) push('confusion_homophones', aStart, aStart + 1, 'Préposition « à » devant un infinitif (« a » est le verbe avoir).', 'grammalecte:ppas');
      continue;
    }
    // « le site Données & Design », « ce texte “Nouvelle grève…” »: a capitalised word inside a
    // sentence is a name or a title, it agrees with nothing (bench/corrections-native.ts).
    if ((e.type === 'gn' || e.type === 'ppas') && /^\p{Lu}/u.test(flagged) && !atSentenceStart(text, e.start)) continue;
    let m = mapRule(e, flagged);
    if (!m) continue;
    let { start, end } = e;
    if (e.type === 'eleu') {
      // « si il » → quote both words: the elision joins them.
      const next = /^\s*[\p{L}]+/u.exec(text.slice(e.end));
      if (next) end = e.end + next[0].length;
    } else if (e.type === 'gn' && e.words) {
      // The words' morphology says which word of the noun phrase is wrong (agreement.ts).
      const partner = grammar.some((g) => g !== e && g.type === 'gn' && g.start >= e.end && /^\s*(?:[\p{L}'’-]+\s+)?$/u.test(text.slice(e.end, g.start)));
      const d = decideNounPhrase(e, partner);
      if (!d) continue;
      m = { code: d.code };
      if (d.withNext) {
        const next = /^\s*[\p{L}'’-]+/u.exec(text.slice(e.end));
        if (next) end = e.end + next[0].length;
      }
      if (d.withPrevious) {
        const before = /[\p{L}'’]+\s*$/u.exec(text.slice(0, e.start));
        if (before) start = e.start - before[0].length;
      }
    } else if ((e.type === 'gn' || e.type === 'conj') && FUNCTION_WORD.test(flagged)) {
      // Grammalecte flags both sides of a disagreement (« Ils » and « croit », « la » and « nouvel »):
      // one error, quoted once, on the word to change.
      const partner = grammar.find((g) => g !== e && g.type === e.type && g.start >= e.end && text.slice(e.end, g.start).trim() === '');
      if (partner) continue;
      const next = /^\s*[\p{L}'’-]+/u.exec(text.slice(e.end));
      if (next) end = e.end + next[0].length;
    } else if (e.type === 'gn' && /_1m/.test(e.rule) && m.code === 'accord_determinant_nom') {
      // Determiner + word: quote both; an adjective before its noun is the word to change.
      const before = /[\p{L}'’]+\s*$/u.exec(text.slice(0, e.start));
      if (before && FUNCTION_WORD.test(before[0].trim())) start = e.start - before[0].length;
      if (/^\s+\p{Ll}/u.test(text.slice(e.end, e.end + 3)) && !/^\s+(?:de|du|des|et|ou|à|en|est|sont|a|ont)\b/u.test(text.slice(e.end, e.end + 8))) m = { code: 'accord_adjectif_nom' };
    }
    const sugg = e.suggestions.length ? ` Proposition : « ${e.suggestions.slice(0, 3).join(' », « ')} ».` : '';
    push(m.code, start, end, `${e.message}${sugg}`.trim(), `grammalecte:${e.type}`, m.description);
  }
  // « rester a la maison », « les notes a Carmen »: an « a » Grammalecte left alone whose previous
  // word cannot be the subject of avoir is a missed « à ».
  for (const a of result.a ?? []) {
    const [two, prev] = a.before.length === 2 ? a.before : [undefined, a.before[0]];
    if (!prev || a.start + 1 > text.length || text[a.start] !== 'a') continue;
    if (out.some((f) => f.start <= a.start && a.start < f.start + f.extrait.length)) continue;
    if (grammar.some((g) => g.start <= a.start && a.start < g.end)) continue;
    // « l'utilisation de ces valeurs a pour conséquence »: a plural noun inside a complement is not
    // the subject; the head before it may be (measured on native prose, bench/corrections-native.ts).
    if (isPluralNounOnly(prev) && COMPLEMENT_BEFORE.test(text.slice(Math.max(0, a.start - 60), a.start))) continue;
    if (cannotBeSubjectOfA(prev, two) || (prev.m.length > 0 && !prev.m.some((m) => m.startsWith('>avoir/')) && beforePlaceOrFeast(text, a.start, prev.w))) push('confusion_homophones', a.start, a.start + 1, 'Préposition « à » (« a » est le verbe avoir : il a, elle a).', 'grammalecte:a');
  }
  // palabre's own rules on Grammalecte's morphology (copula.ts, subjunctive.ts), where Grammalecte
  // said nothing about the same words.
  if (result.lex) {
    const touches = (f: Finding, start: number, end: number) => start < f.start + f.extrait.length && f.start < end;
    for (const f of [...copulaFindings(ctx, result.lex), ...subjunctiveFindings(ctx, result.lex)]) {
      if (out.some((g) => touches(f, g.start, g.start + g.extrait.length)) || grammar.some((g) => touches(f, g.start, g.end))) continue;
      out.push(f);
    }
  }
  if (!opts.oral) {
    const counts = new Map<string, number>();
    for (const s of result.spelling) counts.set(norm(s.word), (counts.get(norm(s.word)) ?? 0) + 1);
    for (const s of result.spelling) {
      const w = norm(s.word);
      if (s.end > text.length || SPELLING_ALLOW.has(w) || opts.lexiconWords.has(w)) continue;
      if (isProperNoun(ctx, s) || /\d/.test(s.word) || s.word.length < 2) continue;
      // The same unknown word twice is a deliberate term (a dish, a place), not a slip.
      if ((counts.get(w) ?? 0) > 1) continue;
      push('faute_orthographe_courante', s.start, s.end, `Mot inconnu du dictionnaire : vérifiez l'orthographe de « ${s.word} ».`, 'grammalecte:orthographe');
    }
  }
  return out;
}
