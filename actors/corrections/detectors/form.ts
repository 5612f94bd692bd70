import { WORD_LIMITS } from '../report.js';
import { finding, headSpan, isWritten, tailSpan, wordRe, type Detector, type DetectorContext, type Finding } from './context.js';

/** Form of a written text: length, letter conventions, paragraphs, copying the prompt. */

export const longueur: Detector = {
  name: 'longueur',
  codes: ['longueur_insuffisante', 'longueur_excessive'],
  applies: isWritten,
  detect(ctx) {
    if (ctx.production.epreuve !== 'EE') return [];
    const { min, max } = WORD_LIMITS[ctx.production.tache];
    const n = ctx.tokens.length;
    if (n < min) {
      const [s, e] = tailSpan(ctx);
      return [finding('longueur', 'longueur_insuffisante', ctx, s, e, `${n} mots pour un minimum de ${min} : développez vos idées (exemples, détails demandés par la consigne).`)];
    }
    if (n > max) {
      const [s, e] = tailSpan(ctx);
      return [finding('longueur', 'longueur_excessive', ctx, s, e, `${n} mots pour un maximum de ${max} : supprimez les répétitions et les détails secondaires.`)];
    }
    return [];
  },
};

const LETTER_CONSIGNE = wordRe('courriel|e-?mail|mail|lettre|message|écrivez à|écrivez-lui|répondez à|répondez-lui|invitation|invitez', 'iu');
const NOT_LETTER_CONSIGNE = wordRe('article|blog|forum|rédigez un texte|texte argumentatif|exprimez votre (?:opinion|point de vue)', 'iu');

/** Letter and mail tasks: the consigne asks for a message, a mail or a letter. */
function isLetterTask(ctx: DetectorContext): boolean {
  return ctx.production.epreuve === 'EE' && LETTER_CONSIGNE.test(ctx.consigne) && !NOT_LETTER_CONSIGNE.test(ctx.consigne);
}

const SALUTATION = /^(objet\s*:|bjr|slt|cc|bonjour|bonsoir|salut|coucou|hello|allô|hey|cher|chère|chers|chères|madame|monsieur|mesdames|messieurs|mon cher|ma chère|à l'attention|à qui de droit)/i;
const CLOSING = /(cordialement|salutations|bien à (toi|vous)|amicalement|amitiés|bises|bisous|à (très )?bientôt|à plus|à (très )?vite|je vous prie|veuillez agréer|veuillez recevoir|merci d'avance|merci par avance|dans l'attente|au plaisir|affectueusement|respectueusement|je t'embrasse|je vous embrasse|bonne (journée|soirée|fin de semaine)|à (samedi|dimanche|demain|ce soir|la semaine prochaine)|prends soin de toi|salut !?$)/i;
/** A signature: one to three capitalised words alone on the last line. */
const SIGNATURE = /^(\p{Lu}[\p{L}'’-]*)(\s+\p{Lu}[\p{L}'’.-]*){0,2}\.?$/u;

export const salutationCloture: Detector = {
  name: 'salutation-cloture',
  codes: ['salutation_absente', 'cloture_absente'],
  applies: isWritten,
  detect(ctx) {
    if (!isLetterTask(ctx) || ctx.paragraphs.length === 0) return [];
    const out: Finding[] = [];
    const firstLines = ctx.paragraphs.slice(0, 2).map((p) => p.text.replace(/’/g, "'"));
    if (!firstLines.some((l) => SALUTATION.test(l))) {
      const [s, e] = headSpan(ctx, 5);
      out.push(finding('salutation-cloture', 'salutation_absente', ctx, s, e, 'Commencez par une formule d\'appel (« Bonjour Paul, », « Madame, Monsieur, »).'));
    }
    const lastLines = ctx.paragraphs.slice(-3).map((p) => p.text.replace(/’/g, "'"));
    const lastLine = lastLines[lastLines.length - 1] ?? '';
    if (!lastLines.some((l) => CLOSING.test(l)) && !SIGNATURE.test(lastLine)) {
      const [s, e] = tailSpan(ctx, 5);
      out.push(finding('salutation-cloture', 'cloture_absente', ctx, s, e, 'Terminez par une formule de clôture et une signature (« Cordialement, » / « À bientôt, » + prénom).'));
    }
    return out;
  },
};

const SHORT_LINE_WORDS = 8;
/** A single block shorter than this is a normal short message (task 1), not « un texte bloc ». */
const BLOCK_MIN_WORDS = 110;

export const paragraphes: Detector = {
  name: 'paragraphes',
  codes: ['paragraphes_absents'],
  applies: isWritten,
  detect(ctx) {
    // Salutation, closing and signature lines are short; the body is what must be divided.
    const body = ctx.paragraphs.filter((p) => p.text.split(/\s+/).length > SHORT_LINE_WORDS);
    if (body.length !== 1 || ctx.tokens.length < BLOCK_MIN_WORDS) return [];
    const only = body[0]!;
    const words = only.text.split(/\s+/).length;
    if (words < ctx.tokens.length * 0.75) return [];
    const [s] = headSpan(ctx, 1);
    const start = Math.max(s, only.start);
    const end = ctx.tokens.filter((t) => t.start >= start).slice(0, 6).at(-1)?.end ?? only.end;
    return [finding('paragraphes', 'paragraphes_absents', ctx, start, end, 'Découpez le texte en paragraphes (introduction, une idée par paragraphe, conclusion) séparés par un retour à la ligne.')];
  },
};

const COPY_MIN_WORDS = 10;

/** `enonce_copie`: ten or more consecutive words of the consigne reproduced in the text. */
export const enonceCopie: Detector = {
  name: 'enonce-copie',
  codes: ['enonce_copie'],
  applies: isWritten,
  detect(ctx) {
    const norm = (w: string) => w.toLowerCase().replace(/’/g, "'");
    const consigneWords = (ctx.consigne.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? []).map(norm);
    if (consigneWords.length < COPY_MIN_WORDS) return [];
    const grams = new Set<string>();
    for (let i = 0; i + COPY_MIN_WORDS <= consigneWords.length; i++) grams.add(consigneWords.slice(i, i + COPY_MIN_WORDS).join(' '));
    const t = ctx.tokens;
    for (let i = 0; i + COPY_MIN_WORDS <= t.length; i++) {
      if (!grams.has(t.slice(i, i + COPY_MIN_WORDS).map((x) => x.lower).join(' '))) continue;
      let j = i + COPY_MIN_WORDS;
      while (j < t.length && grams.has(t.slice(j - COPY_MIN_WORDS + 1, j + 1).map((x) => x.lower).join(' '))) j++;
      return [finding('enonce-copie', 'enonce_copie', ctx, t[i]!.start, t[j - 1]!.end, 'Reformulez la consigne avec vos propres mots au lieu de la recopier.')];
    }
    return [];
  },
};

/** A formal opening: a title, alone or after « Bonjour » / « Cher » (« Monsieur le Directeur, », « Bonjour Madame Roy, »). */
const FORMAL_SALUTATION = /^(?:(?:bonjour|bonsoir|cher|chère)\s+)?(?:madame|monsieur|mesdames|messieurs|docteur|docteure|maître|professeur|professeure|à l'attention|à qui de droit)/i;
const TU_FORMS = new Set(['tu', 'toi', 'ton', 'ta', 'tes', 'te']);

/** `tutoiement_inadequat`: a letter opened with « Madame, Monsieur » that then says « tu ». */
export const tutoiement: Detector = {
  name: 'tutoiement',
  codes: ['tutoiement_inadequat'],
  applies: isWritten,
  detect(ctx) {
    const first = ctx.paragraphs.slice(0, 2).map((p) => p.text.replace(/’/g, "'"));
    if (!first.some((l) => FORMAL_SALUTATION.test(l))) return [];
    // One finding: the choice of address is made once for the whole letter.
    const t = ctx.tokens.find((k) => TU_FORMS.has(k.lower) || /^t'/.test(k.lower));
    if (!t) return [];
    const out: Finding[] = [finding('tutoiement', 'tutoiement_inadequat', ctx, t.start, t.end, 'Dans une lettre formelle, vouvoyez votre destinataire (« vous », « votre »).')];
    return out;
  },
};
