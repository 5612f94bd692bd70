import { atSentenceStart, finding, isWritten, type Detector, type DetectorContext, type Finding } from './context.js';

/** Sentence boundaries and capitals of a written text (transcripts get their punctuation from ASR). */

const LONG_SENTENCE_WORDS = 45;

export const phraseTropLongue: Detector = {
  name: 'phrase-longue',
  codes: ['phrase_trop_longue'],
  applies: isWritten,
  detect(ctx) {
    const out: Finding[] = [];
    let k = 0;
    for (const s of ctx.sentences) {
      // Tokens and sentences are both in text order: one pass over the tokens.
      while (k < ctx.tokens.length && ctx.tokens[k]!.start < s.start) k++;
      const words: typeof ctx.tokens = [];
      for (let j = k; j < ctx.tokens.length && ctx.tokens[j]!.end <= s.end; j++) words.push(ctx.tokens[j]!);
      if (words.length <= LONG_SENTENCE_WORDS) continue;
      out.push(finding('phrase-longue', 'phrase_trop_longue', ctx, words[0]!.start, words[Math.min(7, words.length) - 1]!.end,
        `Phrase de ${words.length} mots : coupez-la en deux ou trois phrases.`));
    }
    return out;
  },
};

/** Words that start a new sentence far more often than they appear capitalised mid-sentence. */
const STARTERS = new Set("Je J' Il Elle Nous Vous Ils Elles On Ce C' Cette Mais Donc Ensuite Puis Enfin Alors Aussi Cependant Par En Les La Le Mon Ma Mes Notre Nos Pour Quand Si Merci Après Demain Aujourd'hui".split(' '));
const LINE_END_OK = /[.!?…:;,)»"”]$/;
const LETTER_LINE = /^(objet|bonjour|bonsoir|salut|coucou|cher|chère|chers|chères|madame|monsieur|mesdames|messieurs|cordialement|amicalement|bises|bisous|à bientôt|à plus|bien à|merci|salutations)/i;

export const pointAbsent: Detector = {
  name: 'point-absent',
  codes: ['point_absent'],
  applies: isWritten,
  detect(ctx) {
    const out: Finding[] = [];
    const t = ctx.tokens;
    for (let i = 1; i < t.length; i++) {
      const before = t[i - 1]!;
      const after = t[i]!;
      if (!STARTERS.has(after.text.replace(/’/g, "'").replace(/^(J|C)'.*$/, "$1'")) && !STARTERS.has(after.text)) continue;
      // A lowercase word, then (optionally a comma and) spaces, then a capitalised sentence starter.
      const gap = ctx.text.slice(before.end, after.start);
      if (!/^,?[ \t]+$/.test(gap) || !/\p{Ll}$/u.test(before.text)) continue;
      out.push(finding('point-absent', 'point_absent', ctx, before.start, after.end, `Mettez un point entre « ${before.text} » et « ${after.text} » : ce sont deux phrases.`));
    }
    // A body paragraph that stops without any final punctuation.
    for (const [i, p] of ctx.paragraphs.entries()) {
      const words = p.text.split(/\s+/).length;
      if (words < 8 || LINE_END_OK.test(p.text) || LETTER_LINE.test(p.text)) continue;
      // A first short line above the body is a title (an article, a blog post): no full stop there.
      if (i === 0 && ctx.paragraphs.length > 1 && words <= 15) continue;
      const last = ctx.tokens.filter((t) => t.end <= p.end).slice(-3);
      if (last.length === 0 || out.some((f) => f.start >= p.start && f.start < p.end && f.start >= last[0]!.start)) continue;
      out.push(finding('point-absent', 'point_absent', ctx, last[0]!.start, last[last.length - 1]!.end, 'Terminez la phrase par un point.'));
    }
    return out;
  },
};

const DAYS_MONTHS = new Set('Lundi Mardi Mercredi Jeudi Vendredi Samedi Dimanche Janvier Février Mars Avril Mai Juin Juillet Août Septembre Octobre Novembre Décembre'.split(' '));
const PROPER_LOWER = new Set('canada québec montréal toronto ottawa vancouver france paris lyon marseille europe afrique belgique suisse maroc algérie tunisie sénégal cameroun haïti mexique brésil chine inde'.split(' '));

/** Nationality adjectives (masculine singular): after a noun they take no capital (« des familles indiennes »). */
const NATIONALITY_STEMS = ('indien iranien brésilien italien canadien algérien tunisien colombien chilien péruvien haïtien égyptien syrien libanais '
  + 'français anglais japonais chinois sénégalais congolais marocain mexicain américain africain cubain dominicain vietnamien coréen européen '
  + 'espagnol russe ukrainien polonais allemand portugais turc grec suisse belge afghan pakistanais philippin nigérian ivoirien camerounais '
  + 'kenyan éthiopien somalien soudanais irakien jordanien saoudien israélien palestinien arménien roumain bulgare serbe croate hongrois '
  + 'québécois argentin vénézuélien bolivien équatorien guatémaltèque salvadorien thaïlandais indonésien malaisien bangladais népalais '
  + 'sri-lankais tamoul kurde persan arabe berbère juif musulman chrétien catholique').split(' ');
function nationalityForms(stem: string): string[] {
  const forms = [stem, `${stem}s`];
  if (stem.endsWith('ien') || stem.endsWith('éen')) forms.push(`${stem}ne`, `${stem}nes`);
  else if (stem.endsWith('e')) forms.push(stem);
  else if (stem.endsWith('c')) forms.push(`${stem}que`, `${stem}ques`);
  else forms.push(`${stem}e`, `${stem}es`);
  return forms;
}
const NATIONALITIES = new Set(NATIONALITY_STEMS.flatMap(nationalityForms));
/** Words after which a capitalised nationality is a noun (« les Indiens », « des Chinois ») or a name. */
const BEFORE_NOUN = new Set(("le la l' les un une des du de d' aux au ces mes tes ses nos vos leurs quelques plusieurs beaucoup deux trois nombreux certains "
  + 'chez avec pour entre parmi par sans comme les mon ma ton ta son sa notre votre leur').split(' '));

/** « des familles Indiennes », « un restaurant Italien », « plats Indiens et Mexicains ». */
function nationalityCapitals(ctx: DetectorContext, push: (start: number, end: number, correction: string) => void): void {
  const t = ctx.tokens;
  let previousFlagged = -10;
  for (let i = 1; i < t.length; i++) {
    const tok = t[i]!;
    if (!/^\p{Lu}\p{Ll}/u.test(tok.text) || !NATIONALITIES.has(tok.lower)) continue;
    if (isSentenceStart(ctx, tok.start)) continue;
    const prev = t[i - 1]!;
    if (/[^\s]/.test(ctx.text.slice(prev.end, tok.start).replace(/\s/g, ''))) continue; // punctuation in between
    const afterCoordination = (prev.lower === 'et' || prev.lower === 'ou') && previousFlagged === i - 2;
    const afterNoun = /^\p{Ll}/u.test(prev.text) && !BEFORE_NOUN.has(prev.lower) && prev.lower.length > 2;
    if (!afterCoordination && !afterNoun) continue;
    previousFlagged = i;
    push(tok.start, tok.end, `Adjectif de nationalité après un nom : minuscule (« ${tok.lower} »).`);
  }
}

function isSentenceStart(ctx: DetectorContext, offset: number): boolean {
  return atSentenceStart(ctx.text, offset);
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
    for (const t of ctx.tokens) {
      if (DAYS_MONTHS.has(t.text)) {
        if (!isSentenceStart(ctx, t.start)) push(t.start, t.end, `Les jours et les mois s'écrivent en minuscules : « ${t.lower} ».`);
      } else if (PROPER_LOWER.has(t.text)) {
        push(t.start, t.end, `Nom propre : « ${t.text.charAt(0).toUpperCase()}${t.text.slice(1)} ».`);
      }
    }
    nationalityCapitals(ctx, push);
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
