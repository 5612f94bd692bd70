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

export const negation: Detector = {
  name: 'negation',
  codes: ['negation_incomplete'],
  applies: always,
  detect(ctx) {
    // Same length as the text: only apostrophes are folded, so offsets stay valid.
    const text = ctx.text.replace(/’/g, "'");
    const out: Finding[] = [];
    for (const m of text.matchAll(NEG)) {
      out.push(finding('negation', 'negation_incomplete', ctx, m.index, m.index + m[0].length,
        `Négation complète à l'écrit comme à l'examen : « ${withNe(m[1]!, m[2]!, m[3]!)} ».`));
    }
    for (const m of text.matchAll(PERSONNE)) {
      if (out.some((f) => f.start <= m.index && f.start + f.extrait.length > m.index)) continue;
      const fix = m[1] ? `${m[1]} ne ${m[2]}` : withNe(m[3]!, m[4]!, m[5]!);
      out.push(finding('negation', 'negation_incomplete', ctx, m.index, m.index + m[0].length, `Négation complète : « ${fix.replace(/ ne ([aeéèêiîoôuhy])/iu, " n'$1")} ».`));
    }
    return out.sort((a, b) => a.start - b.start);
  },
};
