import type { GrammarError } from './sidecar.js';

/**
 * Which agreement code an agreement error of Grammalecte is, decided from the words involved.
 *
 * Grammalecte says *that* a noun phrase or an attribute disagrees; the taxonomy asks *which*
 * word is wrong: the determiner (`accord_determinant_nom`: « un table »), the noun's number
 * (`nombre_incorrect`: « des ami »), an adjective (`accord_adjectif_nom`: « les sites naturel »,
 * « la maison est grand ») or a past participle (`accord_participe_passe`: « nous sommes allé »).
 * The driver sends the morphology (Grammalecte's own tags: `:N` noun, `:A` adjective, `:G:D`
 * determiner, `:f`/`:m`/`:e` gender, `:V…` verb with its auxiliary) of the words around each
 * error; the first-round held-out run showed the rule name alone picks the wrong code a third
 * of the time (docs/corrections.md).
 */

export type Word = NonNullable<GrammarError['words']>[number];

const tagsOf = (w: Word | undefined): string[] => (w ? w.m.map((m) => m.split('/')[1] ?? '') : []);
const isDet = (w: Word | undefined) => tagsOf(w).some((t) => t.startsWith(':G:D'));
/** A noun that cannot be an adjective (« sœur », « cadeau »; not « petite », « jeunes »). */
const isPureNoun = (w: Word | undefined) => tagsOf(w).some((t) => t.startsWith(':N') && !t.includes(':A'));
const hasNoun = (w: Word | undefined) => tagsOf(w).some((t) => t.startsWith(':N'));
const canQualify = (w: Word | undefined) => tagsOf(w).some((t) => t.includes(':A') || /:Q/.test(t));

function genderOf(w: Word | undefined, pred: (t: string) => boolean): 'm' | 'f' | 'e' | undefined {
  for (const t of tagsOf(w).filter(pred)) {
    const g = /:([mfe])(?::|$)/.exec(t.replace(/^:N:A|^:N|^:A/, ''));
    if (g) return g[1] as 'm' | 'f' | 'e';
  }
  return undefined;
}
const agreeGender = (a?: string, b?: string) => !a || !b || a === 'e' || b === 'e' || a === b;

/** A tag of the past participle of a verb conjugated with être (arriver, aller, naître…): Grammalecte's verb tag has `e` as its 7th flag. */
export const isEtreParticipleTag = (t: string): boolean => { const v = /^:V\d(.{8})/.exec(t); return v !== null && v[1]![6] === 'e' && t.includes(':Q'); };

export function isEtreVerbParticiple(w: Word | undefined): boolean {
  return tagsOf(w).some(isEtreParticipleTag);
}

export interface Decision {
  code: string;
  /** Quote the determiner with the following word (« un table ») instead of the flagged word alone. */
  withNext?: boolean;
  /** Quote the word before with the flagged word (« son professeure »). */
  withPrevious?: boolean;
}

/** A `gn` (noun phrase) error: undefined when the other side of the same disagreement reports it. */
export function decideNounPhrase(e: GrammarError, hasPartnerAfter: boolean): Decision | undefined {
  if (e.rule.includes('quel_quelle')) return { code: 'accord_adjectif_nom' };
  const words = e.words ?? [];
  const flagged = words.find((w) => w.pos === 'flagged');
  const before = words.filter((w) => w.pos === 'before').at(-1);
  const after = words.filter((w) => w.pos === 'after');
  const number = /nombre/i.test(e.message);
  if (isDet(flagged)) {
    const [n1, n2] = after;
    if (isPureNoun(n1)) return hasPartnerAfter ? undefined : { code: 'accord_determinant_nom', withNext: true };
    // Determiner + adjective + noun: the adjective agreeing with its noun means the determiner is wrong (« mon petite sœur »).
    if (canQualify(n1) && hasNoun(n2)) {
      const adjOk = agreeGender(genderOf(n1, (t) => t.includes(':A') || t.includes(':Q')), genderOf(n2, (t) => t.startsWith(':N') && !t.includes(':A')) ?? genderOf(n2, (t) => t.startsWith(':N')));
      return adjOk && !number ? { code: 'accord_determinant_nom', withNext: false } : undefined;
    }
    // « la plus connu », « une bon façon »: the adjective's side reports it.
    if (hasPartnerAfter) return undefined;
    return { code: number ? 'nombre_incorrect' : 'accord_determinant_nom', withNext: true };
  }
  // « Accord … avec « des rideaux » : « bleu » … »: the group the flagged word should agree with.
  const group = /avec «\s*([^»]+?)\s*»/u.exec(e.message)?.[1]?.split(/\s+/u) ?? [];
  const groupEndsWithNoun = group.length > 0 && groupLastIsNoun(group, words);
  if (number) {
    if (hasNoun(flagged) && !groupEndsWithNoun && !(canQualify(flagged) && isPureNoun(after[0]))) return { code: 'nombre_incorrect' };
    return { code: 'accord_adjectif_nom' };
  }
  // Gender. The noun itself disagreeing with its determiner: the determiner is the word to change.
  if (/est un déterminant/.test(e.message) && isDet(before)) {
    if (isPureNoun(flagged)) return { code: 'accord_determinant_nom', withPrevious: true };
    // « mon petite sœur »: the adjective agrees with the noun, the determiner side reports it.
    const noun = after.find((w) => hasNoun(w));
    if (noun && canQualify(flagged) && agreeGender(genderOf(flagged, (t) => t.includes(':A') || t.includes(':Q')), genderOf(noun, (t) => t.startsWith(':N')))) return undefined;
  }
  return { code: 'accord_adjectif_nom' };
}

/** Whether the last word of the message's group is a noun (then the flagged word is its adjective). */
function groupLastIsNoun(group: string[], words: Word[]): boolean {
  const last = group.at(-1)!.toLowerCase();
  const known = words.find((w) => w.w.toLowerCase() === last);
  // The group is usually before the flagged word, outside the morphology window: a determiner
  // alone or a determiner + adjective group (« les jeunes ») is told by its words.
  if (known) return isPureNoun(known) && !isDet(known);
  return !DET_OR_ADJ.test(last);
}
const DET_OR_ADJ = /^(?:les|des|ces|mes|tes|ses|nos|vos|leurs|plusieurs|quelques|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|petits?|petites?|grands?|grandes?|jeunes|nouveaux|nouvelles|vieux|vieilles|beaux|belles|bons|bonnes|autres|premiers?|premières?|derniers?|dernières?|certains|certaines|nombreux|nombreuses)$/;

/** A `ppas` error whose flagged form is a participle or an adjective of the right word (not an infinitive or a malformed form). */
export function decideAttribute(e: GrammarError): Decision {
  const flagged = (e.words ?? []).find((w) => w.pos === 'flagged');
  if (e.rule.includes('avoir')) return { code: 'accord_participe_passe' };
  // After être (or a subject + être): a participle of a verb conjugated with être agrees as a
  // participle (« nous sommes allé »); anything else is an adjective (« les routes sont gelé »).
  return { code: isEtreVerbParticiple(flagged) ? 'accord_participe_passe' : 'accord_adjectif_nom' };
}

/** A word that can only be a plural noun (or a verb form): « notes », « valeurs ». */
export const isPluralNounOnly = (w: Word): boolean => {
  const t = tagsOf(w);
  const pluralNoun = (x: string) => /^:N/.test(x) && /:p(?::|$)/.test(x);
  return t.some(pluralNoun) && t.every((x) => pluralNoun(x) || x.startsWith(':V'));
};

/**
 * « donner a manger », « oblige a marcher »: Grammalecte reads « a » as avoir and the infinitive
 * as a participle it lacks; the error is the preposition. True when the word before « a » is a
 * verb (infinitive or conjugated) or a plural noun, not a subject of « a ».
 */
export function isPrepositionA(e: GrammarError): boolean {
  const before = (e.words ?? []).filter((w) => w.pos === 'before');
  if (before.length < 2 || before.at(-1)!.w !== 'a') return false;
  return cannotBeSubjectOfA(before[0]!, undefined);
}

/**
 * Whether the word before « a » cannot be its subject, so « a » is a missed « à »: a verb
 * (« oblige a marcher », « rester a la maison », « se lever a heures fixes ») — never a noun,
 * pronoun or name, which could be the subject of avoir —, or a plural noun (« aider les étudiants
 * a trouver », « les notes a Carmen »: a plural subject takes « ont »). `twoBefore`, the word
 * before it, rules out a noun read as a verb after a determiner (« le dîner a lieu »).
 */
export function cannotBeSubjectOfA(prev: Word, twoBefore: Word | undefined): boolean {
  const t = tagsOf(prev);
  if (t.length === 0 || /^\p{Lu}/u.test(prev.w)) return false;
  // An infinitive, or a verb form in a person that cannot be the subject of « a ».
  const verbal = (x: string) => x.startsWith(':V') && /:Y|:[123]p|:1s|:2s/.test(x);
  const pluralNoun = (x: string) => /^:N/.test(x) && /:p(?::|$)/.test(x);
  if (t.some(pluralNoun) && t.every((x) => pluralNoun(x) || verbal(x))) return true;
  // « se lever a heures fixes »: an infinitive after an object pronoun, even if it is also a noun.
  if (isDet(twoBefore)) return false;
  if (tagsOf(twoBefore).some((x) => x.startsWith(':G:O')) && t.some((x) => x.startsWith(':V') && x.includes(':Y'))) return true;
  return t.some(verbal) && !t.some((x) => x.startsWith(':G') || x.startsWith(':N') || x.startsWith(':M'));
}
