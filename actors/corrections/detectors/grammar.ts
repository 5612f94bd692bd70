import { always, finding, type Detector, type Finding } from './context.js';

/**
 * `negation_incomplete`: a subject, one or two words none of which is « ne/n' », then
 * pas/jamais/rien (« je sais pas », « c'est pas », « il y a pas », « je l'ai pas vu »).
 * « plus » and « personne » are left out (« je veux plus de temps » is no negation), and so are
 * « pas mal » and « pas à pas ».
 */
/** A subject pronoun then a space, or an elided one (« j'ai », « c'est »): never « on » inside « n'ont ». */
const SUBJECT = "(?:je|tu|il|elle|on|nous|vous|ils|elles|ça|ca)\\s+|j'|c'";
const MIDDLE_WORD = "(?!ne\\s|n')\\p{L}+(?:'\\p{L}+)?'?";
const NEG = new RegExp(
  `(?<![\\p{L}])(${SUBJECT})((?:${MIDDLE_WORD}\\s+){1,2})(pas|jamais|rien)(?![\\p{L}])(?!\\s+mal(?![\\p{L}]))(?!\\s+à\\s+pas)`,
  'giu',
);
const EXPAND: Record<string, string> = { "j'": 'je', "c'": 'ce' };

function withNe(subject: string, middle: string, neg: string): string {
  const s = EXPAND[subject.trim().toLowerCase()] ?? subject.trim();
  return `${s} ne ${middle.trim()} ${neg}`.replace(/ ne ([aeéèêiîoôuhy])/iu, " n'$1");
}

/** « Personne » as a subject (« Personne se moquait ») or right after a verb (« je connaissais personne »). */
const PERSONNE = new RegExp(
  `(?:(?<=(?:^|[.!?,;:]\\s*|\\n))(personne)\\s+((?!ne\\s|n')\\p{L}+)|(?<![\\p{L}])(${SUBJECT})((?!ne\\s|n')\\p{L}+(?:'\\p{L}+)?)\\s+(personne)(?![\\p{L}]))`,
  'giu',
);

/** « ne » (or « n' ») just before the match: « il ne nous a pas », « ne m'a jamais » are complete. */
const NE_BEFORE = /(?:^|[^\p{L}])(?:ne\s+|n')(?:\p{L}+'?\s*)?$/iu;

/** A word in lower case or with a capital first letter (a regex source). */
const cap = (w: string) => `[${w[0]!.toUpperCase()}${w[0]}]${w.slice(1)}`;
const alt = (words: string) => words.split(' ').map(cap).join('|');
/** Where a clause starts: text start, a sentence end, a line, a comma, or a conjunction. */
const CLAUSE = `(?:^|(?<=[.!?;:,\\n]\\s*)|(?<=(?:^|[^\\p{L}])(?:${alt("que qu' mais et car si quand comme où")}|parce que)\\s+))`;
const DETERMINERS = alt('le la les mon ma mes ton ta tes son sa ses ce cette ces notre nos votre vos leur leurs');
/** A noun subject: determiner + noun, or a capitalised first name, then a verb, then pas/jamais/plus/rien. */
const NOUN_SUBJECT = new RegExp(
  `${CLAUSE}((?:(?:${DETERMINERS})\\s+\\p{Ll}+|[Ll]'\\p{Ll}+|\\p{Lu}\\p{Ll}+))\\s+((?!ne\\s|n')\\p{Ll}+(?:e|es|ent|t|it|ait|aient|ont|a|est|sont|va|vont|peut|veut|sait|fait))\\s+(pas|jamais|rien)(?!\\p{L})(?!\\s+(?:mal|à\\s+pas|de\\s+|d'|que|qu'))`,
  'gu',
);
/** « personne » / « rien » as the subject, without « ne »: « mais personne est venu », « rien marche ». */
const PRONOUN_SUBJECT = new RegExp(`${CLAUSE}((?:P|p)ersonne|(?:R|r)ien)\\s+((?!ne\\s|n'|de\\s|d'|à\\s|du\\s|des\\s|que\\s|qu')\\p{Ll}+)(?!\\p{L})`, 'gu');
/** A sentence-initial imperative: « Oublie pas ton bonnet », « Ramène pas de cadeau ». */
const IMPERATIVE = /(?:^|(?<=[.!?]\s+|\n\s*))(\p{Lu}\p{Ll}+(?:e|es|ez|ons|s|ds))\s+(pas|jamais|rien|plus)(?!\p{L})/gu;
const NOT_IMPERATIVE = new Set(['toujours', 'surtout', 'encore', 'vraiment', 'absolument', 'pourquoi', 'même', 'certes', 'parfois', 'mais', 'alors', 'donc', 'puis', 'sans', 'ainsi', 'enfin', 'ensuite', 'apparemment', 'plus']);

export const negation: Detector = {
  name: 'negation',
  codes: ['negation_incomplete'],
  applies: always,
  detect(ctx) {
    // Same length as the text: only apostrophes are folded, so offsets stay valid.
    const text = ctx.text.replace(/’/g, "'");
    const out: Finding[] = [];
    for (const m of text.matchAll(NEG)) {
      if (NE_BEFORE.test(text.slice(Math.max(0, m.index - 20), m.index))) continue;
      out.push(finding('negation', 'negation_incomplete', ctx, m.index, m.index + m[0].length,
        `Négation complète à l'écrit comme à l'examen : « ${withNe(m[1]!, m[2]!, m[3]!)} ».`));
    }
    for (const m of text.matchAll(PERSONNE)) {
      if (out.some((f) => f.start <= m.index && f.start + f.extrait.length > m.index)) continue;
      const fix = m[1] ? `${m[1]} ne ${m[2]}` : withNe(m[3]!, m[4]!, m[5]!);
      out.push(finding('negation', 'negation_incomplete', ctx, m.index, m.index + m[0].length, `Négation complète : « ${fix.replace(/ ne ([aeéèêiîoôuhy])/iu, " n'$1")} ».`));
    }
    const taken = (start: number, end: number) => out.some((f) => f.start < end && start < f.start + f.extrait.length);
    for (const m of text.matchAll(NOUN_SUBJECT)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken(start, end) || /^(?:je|tu|il|elle|on|nous|vous|ils|elles|ça|ca|ce|c|y|en)$/i.test(m[1]!)) continue;
      out.push(finding('negation', 'negation_incomplete', ctx, start, end, `Négation complète : « ${m[1]} ne ${m[2]} ${m[3]} ».`.replace(/ ne ([aeéèêiîoôuhy])/iu, " n'$1")));
    }
    for (const m of text.matchAll(PRONOUN_SUBJECT)) {
      const end = m.index + m[0].length;
      if (taken(m.index, end)) continue;
      out.push(finding('negation', 'negation_incomplete', ctx, m.index, end, `Négation complète : « ${m[1]} ne ${m[2]} ».`.replace(/ ne ([aeéèêiîoôuhy])/iu, " n'$1")));
    }
    for (const m of text.matchAll(IMPERATIVE)) {
      const end = m.index + m[0].length;
      if (taken(m.index, end) || NOT_IMPERATIVE.has(m[1]!.toLowerCase())) continue;
      out.push(finding('negation', 'negation_incomplete', ctx, m.index, end, `Négation complète : « Ne ${m[1]!.toLowerCase()} ${m[2]} ».`.replace(/Ne ([aeéèêiîoôuhy])/iu, "N'$1")));
    }
    return out.sort((a, b) => a.start - b.start);
  },
};
