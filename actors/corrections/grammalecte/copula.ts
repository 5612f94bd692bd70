import { finding, type DetectorContext, type Finding } from '../detectors/context.js';
import { isEtreParticipleTag } from './agreement.js';
import { featuresOf, isAdjective, isAdverb, isDeterminer, isNoun, isVerb, lexWords, unanimous, type Features, type LexWord } from './lexWords.js';
import type { Lex } from './sidecar.js';

/**
 * The attribute that does not agree with its subject: « la chambre est très froid », « les
 * maisons sont colorée », « Elle est ouvert », and the superlative « la fête la plus important ».
 *
 * Grammalecte leaves these alone when the adjective can also be a noun (froid, grand, important)
 * or when a complement sits between subject and verb (« les tomates du balcon est très fragile »):
 * on the labelled tuning productions they were the largest group of missed agreement errors.
 * The rule is deliberately narrow: the subject is a noun phrase that opens a clause (after a
 * sentence start, punctuation or « mais/car/donc… », never after « et »/« ou », which could join
 * two subjects) or a personal pronoun; the attribute comes right after the verb and its adverbs;
 * the subject's gender or number must be certain (the noun and its determiner agree on it), and
 * no reading of the attribute may agree.
 */

const COPULA = new Set([
  'est', 'sont', 'était', 'étaient', 'sera', 'seront', 'serait', 'seraient', 'soit', 'soient',
  'reste', 'restent', 'restait', 'restaient', 'semble', 'semblent', 'semblait', 'semblaient',
  'devient', 'deviennent', 'devenait', 'devenaient', 'paraît', 'paraissent',
]);
const PRONOUN: Readonly<Record<string, Features>> = {
  il: { gender: 'm', number: 's' }, elle: { gender: 'f', number: 's' }, ils: { gender: 'm', number: 'p' }, elles: { gender: 'f', number: 'p' },
};
/** Words that open a clause before a subject noun phrase. */
const CLAUSE_OPENER = new Set(['mais', 'car', 'donc', 'puis', 'alors', 'ensuite', 'aussi', 'parce', 'quand', 'lorsque', "lorsqu'", 'si', 'que', "qu'", 'comme', 'où', 'enfin', 'heureusement', 'malheureusement', 'aujourd', 'maintenant']);
/** Inside a noun phrase between its determiner and the verb (« les tomates du balcon », « les transports en commun »). */
const NP_LINK = new Set(['de', 'du', 'des', "d'", 'en', 'à']);
const NEGATION = new Set(['pas', 'plus', 'jamais', 'point', 'guère']);
/** Words after the attribute that show it is the end of the attribute (not « fort intelligente »). */
const AFTER_ATTRIBUTE = new Set(['et', 'mais', 'ou', 'car', 'pour', 'parce', 'quand', 'depuis', 'avec', 'à', 'en', 'dans', 'le', 'la', 'les', 'aujourd', 'maintenant', 'aussi']);

function nounPhraseFeatures(words: LexWord[], first: number, last: number): Features | undefined {
  // The head is the first noun after the phrase's determiner (« le problème de mes voisins » → problème).
  const det = words[first]!;
  let head: LexWord | undefined;
  for (let i = first + 1; i <= last; i++) {
    const w = words[i]!;
    if (NP_LINK.has(w.lower)) break;
    if (w.tags.some(isNoun)) { head = w; if (!w.tags.some((t) => isAdjective(t) && !isNoun(t))) break; }
  }
  if (!head) return undefined;
  const nounReadings = head.tags.filter(isNoun).map(featuresOf);
  const detReadings = det.tags.filter(isDeterminer).map(featuresOf);
  const pick = <K extends 'g' | 'n'>(k: K, either: string) => {
    const fromNoun = unanimous(nounReadings.map((r) => r[k]), either);
    const fromDet = unanimous(detReadings.map((r) => r[k]), either);
    if (fromNoun && fromDet && fromNoun !== fromDet) return undefined; // the phrase disagrees with itself: Grammalecte's job
    return fromNoun ?? fromDet;
  };
  const gender = pick('g', 'e') as Features['gender'];
  const number = pick('n', 'i') as Features['number'];
  if (!gender && !number) return undefined;
  return { ...(gender ? { gender } : {}), ...(number ? { number } : {}) };
}

const SINGULAR_COPULA = /^(?:est|était|sera|serait|soit|reste|restait|semble|semblait|devient|devenait|paraît)$/;

/** The subject's features when the words before the verb at `v` are a clause-opening subject. */
function subjectBefore(words: LexWord[], v: number): Features | undefined {
  let i = v - 1;
  if (i >= 0 && (words[i]!.lower === 'ne' || words[i]!.lower === "n'")) i--;
  if (i < 0) return undefined;
  const p = PRONOUN[words[i]!.lower];
  if (p) return p;
  // Walk back over the noun phrase: nouns, adjectives, determiners and the links inside it.
  let j = i;
  while (j >= 0 && j > i - 7) {
    const w = words[j]!;
    if (w.punct || !(w.tags.some((t) => isNoun(t) || isAdjective(t) || isDeterminer(t)) || NP_LINK.has(w.lower))) break;
    if (w.tags.some(isVerb) && !w.tags.some((t) => isNoun(t) || isDeterminer(t) || isAdjective(t))) break;
    j--;
  }
  // The phrase must start with a determiner, and open its clause.
  let first = j + 1;
  while (first <= i && !words[first]!.tags.some(isDeterminer)) first++;
  if (first > i || first !== j + 1) return undefined;
  const opener = words[j];
  // After « et » the phrase may be the second of two subjects (« mon frère et ma sœur sont… »);
  // with a singular verb it is not (« … et la chambre est froid »). After « ou » either may agree.
  const joined = opener && opener.lower === 'et' && SINGULAR_COPULA.test(words[v]!.lower);
  if (opener && !opener.punct && !CLAUSE_OPENER.has(opener.lower) && !joined) return undefined;
  if (opener && (opener.text === '«' || opener.text === '(')) return undefined;
  const features = nounPhraseFeatures(words, first, i);
  // « l'ensemble des champs sont obligatoires », « la plupart des gens sont »: with a complement,
  // a verb whose number differs from the head's agrees with the complement; so may the attribute.
  const linked = words.slice(first, i + 1).some((w) => NP_LINK.has(w.lower));
  const verbNumber = SINGULAR_COPULA.test(words[v]!.lower) ? 's' : 'p';
  if (linked && features?.number && features.number !== verbNumber) return undefined;
  return features;
}

const agrees = (tag: string, s: Features) => {
  const { g, n } = featuresOf(tag);
  const genderOk = !s.gender || !g || g === 'e' || g === s.gender;
  const numberOk = !s.number || !n || n === 'i' || n === s.number;
  return genderOk && numberOk;
};

/** True when the word at `k` is an attribute none of whose readings agrees with the subject. */
function disagrees(words: LexWord[], k: number, s: Features): boolean {
  const w = words[k];
  if (!w || w.punct || !w.tags.length) return false;
  const adjectives = w.tags.filter(isAdjective);
  if (!adjectives.length) return false;
  // A word that is also a determiner, pronoun or finite verb is not read as an attribute.
  if (w.tags.some((t) => t.startsWith(':G') || (isVerb(t) && /:[IKSE]/.test(t)))) return false;
  if (adjectives.some((t) => agrees(t, s))) return false;
  // « fort », « bas », « cher » are adverbs too: only at the end of the attribute.
  const next = words[k + 1];
  if (w.tags.some(isAdverb) && next && !next.punct && !AFTER_ATTRIBUTE.has(next.lower)) return false;
  return true;
}

export function copulaFindings(ctx: DetectorContext, lex: Lex): Finding[] {
  const words = lexWords(ctx.text, lex);
  const out: Finding[] = [];
  const report = (w: LexWord, code: string, why: string) =>
    out.push(finding('grammalecte:attribut', code, ctx, w.start, w.end, why));
  for (let v = 0; v < words.length; v++) {
    const verb = words[v]!;
    if (COPULA.has(verb.lower)) {
      const s = subjectBefore(words, v);
      if (!s) continue;
      let k = v + 1;
      // Negation and adverbs between the verb and its attribute (« n'est pas très », « de plus en plus »).
      for (let skipped = 0; skipped < 5 && k < words.length; skipped++) {
        const w = words[k]!;
        const adverbOnly = w.tags.length > 0 && w.tags.every(isAdverb);
        const inPhrase = (w.lower === 'de' || w.lower === 'en') && /^(plus|moins)$/.test(words[k + 1]?.lower ?? '');
        if (NEGATION.has(w.lower) || adverbOnly || inPhrase || (w.lower === 'plus' || w.lower === 'moins')) k++;
        else break;
      }
      if (!disagrees(words, k, s)) continue;
      const w = words[k]!;
      // After être, the participle of a verb taking être agrees as a participle (« elles sont parti »).
      const etre = /^(?:est|sont|était|étaient|sera|seront|serait|seraient|soit|soient)$/.test(verb.lower);
      const code = etre && w.tags.some(isEtreParticipleTag) ? 'accord_participe_passe' : 'accord_adjectif_nom';
      report(w, code, `L'attribut « ${w.text} » s'accorde avec le sujet (${s.gender === 'f' ? 'féminin' : s.gender === 'm' ? 'masculin' : ''}${s.gender && s.number ? ' ' : ''}${s.number === 'p' ? 'pluriel' : s.number === 's' ? 'singulier' : ''}).`);
      continue;
    }
    // « la fête la plus important »: after « la/les plus|moins » the adjective agrees with the article.
    if ((verb.lower === 'la' || verb.lower === 'les') && /^(plus|moins)$/.test(words[v + 1]?.lower ?? '') && v > 0 && words[v - 1]!.tags.some(isNoun)) {
      const art = verb.lower === 'la' ? { gender: 'f' as const, number: 's' as const } : { number: 'p' as const };
      if (!disagrees(words, v + 2, art)) continue;
      const w = words[v + 2]!;
      report(w, 'accord_adjectif_nom', `L'adjectif « ${w.text} » s'accorde avec « ${words[v - 1]!.text} » (« ${verb.text} ${words[v + 1]!.text} … »).`);
    }
  }
  return out;
}
