import { finding, isWritten, wordRe, type Detector, type DetectorContext, type Finding } from './context.js';

/** Sentence boundaries and capitals of a written text (transcripts get their punctuation from ASR). */

const LONG_SENTENCE_WORDS = 45;

export const phraseTropLongue: Detector = {
  name: 'phrase-longue',
  codes: ['phrase_trop_longue'],
  applies: isWritten,
  detect(ctx) {
    const out: Finding[] = [];
    for (const s of ctx.sentences) {
      const words = ctx.tokens.filter((t) => t.start >= s.start && t.end <= s.end);
      if (words.length <= LONG_SENTENCE_WORDS) continue;
      out.push(finding('phrase-longue', 'phrase_trop_longue', ctx, words[0]!.start, words[Math.min(7, words.length) - 1]!.end,
        `Phrase de ${words.length} mots : coupez-la en deux ou trois phrases.`));
    }
    return out;
  },
};

/** Words that start a new sentence far more often than they appear capitalised mid-sentence. */
const STARTERS = "Je|J'|Il|Elle|Nous|Vous|Ils|Elles|On|Ce|C'est|Cette|Mais|Donc|Ensuite|Puis|Enfin|Alors|Aussi|Cependant|Par|En|Les|La|Le|Mon|Ma|Mes|Notre|Nos|Pour|Quand|Si|Merci|Après|Demain|Aujourd'hui";
/** A lowercase word, then (optionally a comma and) a capitalised sentence starter: a missing full stop. */
const RUN_ON = new RegExp(`(?<=\\p{Ll})(,?)[ \\t]+(?=(?:${STARTERS})(?![\\p{L}]))`, 'gu');
const LINE_END_OK = /[.!?…:;,)»"”]$/;
const LETTER_LINE = /^(objet|bonjour|bonsoir|salut|coucou|cher|chère|chers|chères|madame|monsieur|mesdames|messieurs|cordialement|amicalement|bises|bisous|à bientôt|à plus|bien à|merci|salutations)/i;

export const pointAbsent: Detector = {
  name: 'point-absent',
  codes: ['point_absent'],
  applies: isWritten,
  detect(ctx) {
    const out: Finding[] = [];
    const text = ctx.text.replace(/’/g, "'");
    for (const m of text.matchAll(RUN_ON)) {
      const before = ctx.tokens.filter((t) => t.end <= m.index).at(-1);
      const after = ctx.tokens.find((t) => t.start >= m.index + m[0].length);
      if (!before || !after) continue;
      out.push(finding('point-absent', 'point_absent', ctx, before.start, after.end, `Mettez un point entre « ${before.text} » et « ${after.text} » : ce sont deux phrases.`));
    }
    // A body paragraph that stops without any final punctuation.
    for (const p of ctx.paragraphs) {
      const words = p.text.split(/\s+/).length;
      if (words < 8 || LINE_END_OK.test(p.text) || LETTER_LINE.test(p.text)) continue;
      const last = ctx.tokens.filter((t) => t.end <= p.end).slice(-3);
      if (last.length === 0 || out.some((f) => f.start >= p.start && f.start < p.end && f.start >= last[0]!.start)) continue;
      out.push(finding('point-absent', 'point_absent', ctx, last[0]!.start, last[last.length - 1]!.end, 'Terminez la phrase par un point.'));
    }
    return out;
  },
};

const DAYS_MONTHS = 'Lundi|Mardi|Mercredi|Jeudi|Vendredi|Samedi|Dimanche|Janvier|Février|Mars|Avril|Mai|Juin|Juillet|Août|Septembre|Octobre|Novembre|Décembre';
const PROPER_LOWER = 'canada|québec|montréal|toronto|ottawa|vancouver|france|paris|lyon|marseille|europe|afrique|belgique|suisse|maroc|algérie|tunisie|sénégal|cameroun|haïti|mexique|brésil|chine|inde';

function isSentenceStart(ctx: DetectorContext, offset: number): boolean {
  const before = ctx.text.slice(0, offset).replace(/[\s«"“(]+$/u, '');
  return before === '' || /[.!?…:\n]$/.test(before);
}

export const majuscules: Detector = {
  name: 'majuscules',
  codes: ['majuscules_incorrectes'],
  applies: isWritten,
  detect(ctx) {
    const out: Finding[] = [];
    const push = (start: number, end: number, correction: string) => out.push(finding('majuscules', 'majuscules_incorrectes', ctx, start, end, correction));
    for (const s of ctx.sentences) {
      const first = ctx.tokens.find((t) => t.start >= s.start && t.start < s.end);
      if (!first || !/^\p{Ll}/u.test(first.text)) continue;
      // Only after a real sentence end (a line starting lowercase after « Bonjour Paul, » is normal).
      const before = ctx.text.slice(0, first.start).replace(/[\s«"“]+$/u, '');
      if (before !== '' && !/[.!?…]$/.test(before)) continue;
      if (/\b(etc|ex|cf|p|M|Mme|av|env)\.$/.test(before)) continue;
      push(first.start, first.end, `Majuscule en début de phrase : « ${first.text.charAt(0).toUpperCase()}${first.text.slice(1)} ».`);
    }
    for (const m of ctx.text.matchAll(wordRe(DAYS_MONTHS, 'gu'))) {
      if (isSentenceStart(ctx, m.index)) continue;
      push(m.index, m.index + m[0].length, `Les jours et les mois s'écrivent en minuscules : « ${m[0].toLowerCase()} ».`);
    }
    for (const m of ctx.text.matchAll(wordRe(PROPER_LOWER, 'gu'))) {
      push(m.index, m.index + m[0].length, `Nom propre : « ${m[0].charAt(0).toUpperCase()}${m[0].slice(1)} ».`);
    }
    return out.sort((a, b) => a.start - b.start);
  },
};

export const ponctuation: Detector = {
  name: 'ponctuation',
  codes: ['ponctuation_incorrecte'],
  applies: isWritten,
  detect(ctx) {
    const out: Finding[] = [];
    for (const m of ctx.text.matchAll(/[!?]{2,}|\.{4,}|,{2,}/gu)) {
      const start = ctx.tokens.filter((t) => t.end <= m.index).at(-1)?.start ?? m.index;
      out.push(finding('ponctuation', 'ponctuation_incorrecte', ctx, start, m.index + m[0].length, 'Un seul signe de ponctuation suffit ; évitez les doubles « !! », « ?? » dans un écrit.'));
    }
    return out;
  },
};
