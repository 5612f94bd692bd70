import { oralCritereOf, type Critere } from '../../prompts/taxonomy.js';
import type { Finding } from './detectors/context.js';
import { criteriaOf } from './report.js';
import { languageMeasures } from './richness.js';
import { taskShare, type Measured } from './ceiling.js';
import { candidateText } from './production.js';
import { type Production } from '../../prompts/corrections/tasks.js';
import { writtenFeedback, oralFeedback, type Figures } from './feedback.js';
import type { OralComponents } from './oralComponents.js';

/**
 * Scores without a model. Written: from the density of the errors found, weighted by their gravity.
 *
 *   weighted errors per 100 words, per criterion:  d_c = 100 × Σ gravity(e) / max(words, 60)
 *   language density (lexicon + grammar):           d_L = d_lexique + d_grammaire
 *   score_c = clamp(BASE − SLOPE × (d_c + SPILL_c × d_L), FLOOR, BASE)        rounded to 0.5
 *
 * minus 10 × (1 − richness), richness = range and complexity as for the oral (Guiraud 6 → 0, 10 → 1;
 * √(markers / 5)), so that a simple, correct text is a middle grade.
 *
 * BASE is 17, not 20: without a model the content, the ideas and the richness of the language are
 * not assessed, so a text without any detected error is "very good", not "perfect". SPILL makes
 * dense language errors weigh on the other criteria too (a text hard to read is less coherent and
 * serves its task less well): 0.5 for cohérence, 0.25 for adéquation. The constants were fitted on
 * the tuning part of the labelled set (docs/corrections.md).
 *
 * Oral: each criterion mixes what the candidate did with the task (questions on the subject,
 * information obtained, how much they spoke, follow-ups: ceiling.ts/task.ts) and what their language
 * shows (range of the vocabulary, complex sentences, errors: richness.ts and the findings):
 *
 *   task T = 0.3 × questions + 0.3 × information + 0.25 × volume + 0.15 × follow-ups   (each 0–1)
 *   volume = words / 150 (with the duration), times the share of the task done (ceiling.ts)
 *   range = Guiraud's index 4 → 0, 10 → 1; complexity = √(markers per 100 words (of at least 60) / 8);
 *   sentence length = 4 → 0, 10 → 1 words per sentence, times words / 60 under 60 words
 *   (without punctuation: min(range, complexity) instead)
 *   cohérence     = 1.5 + 16 × (0.45 T + 0.55 (0.5 range + 0.5 complexity)) − min(5, 0.5 (d_coh + 0.5 d_L))
 *   lexique       = 1.5 + 16 × (0.3 T + 0.7 (0.75 range + 0.25 sentence length)) − min(5, 0.5 d_lex)
 *   morphosyntaxe = 1.5 + 16 × (0.3 T + 0.7 (0.4 complexity + 0.35 sentence length + 0.25 range)) − min(5, 0.5 d_gram)
 *
 * then the task-completion ceiling (ceiling.ts). Fitted on the tuning part of the labelled T2
 * transcripts (test/corrections/eval/oral/, `bench/grading-oral.ts`).
 */

/** The constants of the formula: `bench/corrections-calibrate.ts` tries other values on the tuning data. */
export interface ScoringParams {
  base: number;
  floor: number;
  /** Points lost per weighted error per 100 words (the curve's slope at a clean text). */
  slope: number;
  /** `linear` falls straight to the floor; `exp` bends towards it and never reaches it. */
  curve: 'linear' | 'exp';
  spill: Readonly<Record<string, number>>;
  gravity: Readonly<Record<string, number>>;
  /** Texts shorter than this count as this long (a few errors in 30 words are not 10 per 100). */
  minWords: number;
  /** Under a task-completion ceiling, the criterion score that reaches the band's top (scores are scaled into the band). */
  bandTop: number;
}

export const BASE = 17;
const FLOOR = 3;
const SLOPE = 2;
export const SPILL: Readonly<Record<string, number>> = { coherence_cohesion: 0.5, adequation_tache: 0.25, lexique: 0, morphosyntaxe: 0 };

/** Gravity of a code (1 = an ordinary grammar error). Codes not listed weigh 1. */
export const GRAVITY: Readonly<Record<string, number>> = {
  faute_orthographe_courante: 0.5, majuscules_incorrectes: 0.5, point_absent: 0.5, ponctuation_incorrecte: 0.5, virgule_absence: 0.25, virgule_exces: 0.25,
  anglicisme: 0.75, negation_incomplete: 0.75, repetition_lexicale: 0.5, connecteurs_repetes: 0.5, phrase_trop_longue: 0.5,
  salutation_absente: 1.5, cloture_absente: 1.5, paragraphes_absents: 1.5, structure_absente: 1.5, tutoiement_inadequat: 1.5, enonce_copie: 2,
  abreviations_sms: 1, longueur_excessive: 1, longueur_insuffisante: 0, // the length cap (10/20) handles it
};

export const SCORING: ScoringParams = { base: BASE, floor: FLOOR, slope: SLOPE, curve: 'linear', spill: SPILL, gravity: GRAVITY, minWords: 60, bandTop: 10 };

/** Score of one criterion for a weighted density `x` (errors per 100 words), before rounding. */
function curve(x: number, p: ScoringParams): number {
  if (p.curve === 'exp') return p.floor + (p.base - p.floor) * Math.exp((-p.slope * x) / (p.base - p.floor));
  return Math.min(p.base, Math.max(p.floor, p.base - p.slope * x));
}

const LANGUAGE = new Set(['competence_lexicale', 'competence_grammaticale', 'lexique', 'morphosyntaxe']);

export interface CriterionGrade {
  score: number;
  /** Plain French feedback for the candidate. */
  justification: string;
  /** The figures behind the score, for a detail view. */
  details: string[];
}

/** Weighted errors per 100 words, per criterion key (written criteria, or oral ones for EO). */
function densities(production: Production, findings: Finding[], words: number, p: ScoringParams) {
  const weight = new Map<string, number>();
  const count = new Map<string, number>();
  for (const f of findings) {
    const key = production.epreuve === 'EE' ? f.critere : oralCritereOf(f.critere as Critere, f.code);
    weight.set(key, (weight.get(key) ?? 0) + (p.gravity[f.code] ?? 1));
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  const per100 = (w: number) => (100 * w) / Math.max(words, p.minWords);
  let language = 0;
  for (const [k, w] of weight) if (LANGUAGE.has(k)) language += per100(w);
  return { density: (k: string) => per100(weight.get(k) ?? 0), count: (k: string) => count.get(k) ?? 0, language };
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const half = (x: number) => Math.round(x * 2) / 2;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const fr = (x: number) => String(round1(x)).replace('.', ',');

/**
 * What a correct written text still has to show for a high score: the range of its vocabulary and
 * complex sentences. A simple, correct text within the limits is a B1 text (about 12/20), not 17.
 * Guiraud's index 6 → 0, 10 → 1 (over windows of 150 words); complexity as for the oral task.
 */
const WRITTEN_RICHNESS = { rangeLow: 6, rangeHigh: 10, complexityFull: 5, weight: 10 } as const;
/** How much of each written criterion rests on the range of the vocabulary (the rest on complexity). */
const RANGE_SHARE: Readonly<Record<string, number>> = { adequation_tache: 0.5, coherence_cohesion: 0.3, competence_lexicale: 0.8, competence_grammaticale: 0.3 };
/** Points lost by a task-3 text that takes up neither, or only one, of the two documents. */
const MISSING_DOCUMENT = 2;

export function densityScores(production: Production, findings: Finding[], words: number, p: ScoringParams = SCORING, measured?: Measured): Record<string, CriterionGrade & { density: number }> {
  const d = densities(production, findings, words, p);
  const out: Record<string, CriterionGrade & { density: number }> = {};
  const lang = production.epreuve === 'EE' ? languageMeasures(production.texte) : undefined;
  const range = lang ? clamp01((lang.guiraud - WRITTEN_RICHNESS.rangeLow) / (WRITTEN_RICHNESS.rangeHigh - WRITTEN_RICHNESS.rangeLow)) : 1;
  const complexity = lang ? complexityScore(lang.complexite, WRITTEN_RICHNESS) : 1;
  const w = measured?.written;
  const missingDocs = w && w.documents > 0 ? w.documents - w.documentsRepris : 0;
  for (const c of criteriaOf(production.epreuve)) {
    if (!c.evalue) continue;
    const density = d.density(c.id);
    const spill = p.spill[c.id] ?? 0;
    const share = RANGE_SHARE[c.id] ?? 0.5;
    const richness = share * range + (1 - share) * complexity;
    const docs = c.id === 'adequation_tache' ? MISSING_DOCUMENT * missingDocs : 0;
    const score = half(Math.max(p.floor, curve(density + spill * d.language, p) - WRITTEN_RICHNESS.weight * (1 - richness) - docs));
    const n = d.count(c.id);
    const figures: Figures = { errors: n, density, words, ...(measured?.written ? { written: measured.written } : {}) };
    out[c.id] = {
      score,
      density,
      justification: writtenFeedback(c.id, score, figures),
      details: [
        `${n} erreur(s) relevée(s) pour ce critère, ${fr(density)} points de gravité pour 100 mots (texte de ${words} mots, compté au moins ${p.minWords})`,
        ...(spill && d.language ? [`densité des erreurs de langue ${fr(d.language)}, comptée à ${Math.round(spill * 100)} %`] : []),
        ...(lang ? [`étendue du vocabulaire (indice de Guiraud) ${fr(lang.guiraud)} ; marques de phrases complexes ${fr(lang.complexite)} pour 100 mots`] : []),
        `note = ${p.base} − ${p.slope} × (${fr(density)}${spill && d.language ? ` + ${spill} × ${fr(d.language)}` : ''}) − ${WRITTEN_RICHNESS.weight} × (1 − richesse ${fr(richness)})${docs ? ` − ${docs} (document non repris)` : ''}, entre ${p.floor} et ${p.base}, arrondie au demi-point`,
        ...(c.id === 'adequation_tache' && measured?.written ? [`longueur : ${measured.written.mots} mots (consigne : ${measured.written.min} à ${measured.written.max})`, `mots de la consigne repris dans le texte : ${measured.written.motsConsigneRepris} sur ${measured.written.motsConsigne}`] : []),
      ],
    };
  }
  return out;
}

/** The constants of the oral grade: `bench/grading-oral.ts` reports what they give on the labelled transcripts. */
export interface OralParams {
  /** Relevant questions, information share, candidate words and follow-ups that count in full. */
  questionsFull: number;
  wordsFull: number;
  followUpsFull: number;
  /** Seconds of dialogue that count in full (when the transcript has timestamps). */
  secondsFull: number;
  /** Guiraud's index mapped to 0–1 between these two values. */
  rangeLow: number;
  rangeHigh: number;
  /** Complexity markers per 100 words that count in full. */
  complexityFull: number;
  /** Words per sentence mapped to 0–1 between these two values. */
  sentenceLow: number;
  sentenceHigh: number;
  /** Points lost per weighted error per 100 words, and at most (speech recognition adds its own slips). */
  slope: number;
  maxPenalty: number;
  /** The score of a criterion with nothing done (0) and with everything done (1), before errors. */
  low: number;
  high: number;
  /** Under a task-completion ceiling, the criterion score that reaches the band's top (scores are scaled into the band). */
  bandTop: number;
}

export const ORAL: OralParams = {
  questionsFull: 6, wordsFull: 150, followUpsFull: 4, secondsFull: 180,
  rangeLow: 4, rangeHigh: 10, complexityFull: 8, sentenceLow: 4, sentenceHigh: 10, slope: 0.5, maxPenalty: 5, low: 1.5, high: 17.5, bandTop: 10,
};

/** Complexity markers per 100 words to 0–1, concave: the first markers show more than the tenth. */
function complexityScore(per100: number, p: Pick<OralParams, 'complexityFull'> = ORAL): number {
  return Math.sqrt(clamp01(per100 / p.complexityFull));
}

export function oralComponents(production: Extract<Production, { epreuve: 'EO' }>, measured: Measured, p: OralParams = ORAL): OralComponents {
  const m = measured.oral!;
  const language = languageMeasures(candidateText(production));
  const t2 = production.tache === 'EO_T2';
  // In the role-play, speaking counts only as far as it serves the task: words without questions
  // (a monologue) are no interaction, so the volume is weighed by the share of the task done.
  const done = t2 ? taskShare(m) : 1;
  const byWords = clamp01(m.mots / p.wordsFull) * done;
  const volume = m.dureeS > 0 ? 0.75 * byWords + 0.25 * clamp01(m.dureeS / p.secondsFull) * byWords ** 0.5 : byWords;
  // Outside the role-play nobody has to ask: the task is speaking enough, on the topic, and developing.
  const questions = t2 ? clamp01(m.questionsPertinentes / p.questionsFull) : byWords;
  const information = t2 ? clamp01(m.faitsObtenus / m.faitsTotal) : (measured.completion.niveau === 'hors_sujet' ? 0 : 1) * byWords;
  const followUps = t2 ? clamp01(m.relances / p.followUpsFull) : complexityScore(language.complexite, p);
  const task = 0.3 * questions + 0.3 * information + 0.25 * volume + 0.15 * followUps;
  const range = clamp01((language.guiraud - p.rangeLow) / (p.rangeHigh - p.rangeLow));
  const complexity = complexityScore(language.complexite, p);
  return {
    task, questions, information, volume, followUps, language, range, complexity,
    // Long sentences show something only in a production long enough to show it; without
    // punctuation (a speech recogniser's transcript) a « sentence » is a whole turn, so the
    // measure is left out and range and complexity stand in for it.
    sentence: language.ponctue
      ? clamp01((language.motsParPhrase - p.sentenceLow) / (p.sentenceHigh - p.sentenceLow)) * clamp01(m.mots / 60)
      : Math.min(range, complexity) * clamp01(m.mots / 60),
  };
}

export function oralScores(production: Extract<Production, { epreuve: 'EO' }>, findings: Finding[], words: number, measured: Measured, p: OralParams = ORAL, s: ScoringParams = SCORING): Record<string, CriterionGrade> {
  const c = oralComponents(production, measured, p);
  const d = densities(production, findings, words, s);
  const scale = (x: number) => p.low + (p.high - p.low) * x;
  const penalty = (density: number) => Math.min(p.maxPenalty, p.slope * density);
  const raw: Record<'coherence_cohesion' | 'lexique' | 'morphosyntaxe', { value: number; formula: string; density: number }> = {
    coherence_cohesion: {
      value: scale(0.45 * c.task + 0.55 * (0.5 * c.range + 0.5 * c.complexity)) - penalty(d.density('coherence_cohesion') + 0.5 * d.language),
      formula: `${fr(p.low)} + ${fr(p.high - p.low)} × (0,45 × tâche ${fr(c.task)} + 0,55 × (0,5 × étendue ${fr(c.range)} + 0,5 × complexité ${fr(c.complexity)})) − min(${p.maxPenalty}, ${fr(p.slope)} × (${fr(d.density('coherence_cohesion'))} + 0,5 × ${fr(d.language)}))`,
      density: d.density('coherence_cohesion'),
    },
    lexique: {
      value: scale(0.3 * c.task + 0.7 * (0.75 * c.range + 0.25 * c.sentence)) - penalty(d.density('lexique')),
      formula: `${fr(p.low)} + ${fr(p.high - p.low)} × (0,3 × tâche ${fr(c.task)} + 0,7 × (0,75 × étendue ${fr(c.range)} + 0,25 × longueur des phrases ${fr(c.sentence)})) − min(${p.maxPenalty}, ${fr(p.slope)} × ${fr(d.density('lexique'))})`,
      density: d.density('lexique'),
    },
    morphosyntaxe: {
      value: scale(0.3 * c.task + 0.7 * (0.4 * c.complexity + 0.35 * c.sentence + 0.25 * c.range)) - penalty(d.density('morphosyntaxe')),
      formula: `${fr(p.low)} + ${fr(p.high - p.low)} × (0,3 × tâche ${fr(c.task)} + 0,7 × (0,4 × complexité ${fr(c.complexity)} + 0,35 × longueur des phrases ${fr(c.sentence)} + 0,25 × étendue ${fr(c.range)})) − min(${p.maxPenalty}, ${fr(p.slope)} × ${fr(d.density('morphosyntaxe'))})`,
      density: d.density('morphosyntaxe'),
    },
  };
  const m = measured.oral!;
  const out: Record<string, CriterionGrade> = {};
  for (const [id, r] of Object.entries(raw)) {
    const score = half(Math.min(20, Math.max(0, r.value)));
    out[id] = {
      score,
      justification: oralFeedback(id, score, { tache: production.tache, measures: m, components: c, errors: d.count(id), completion: measured.completion.niveau }),
      details: [
        production.tache === 'EO_T2'
          ? `questions sur le sujet : ${m.questionsPertinentes} (tours qui posent une question : ${m.questions}) ; informations obtenues : ${m.faitsObtenus} sur ${m.faitsTotal} ; relances : ${m.relances}`
          : `mots prononcés : ${m.mots}`,
        `paroles du candidat : ${m.mots} mots en ${m.tours} tours${m.dureeS ? `, dialogue de ${Math.floor(m.dureeS / 60)} min ${m.dureeS % 60} s` : ''}`,
        `étendue du vocabulaire (indice de Guiraud) ${fr(c.language.guiraud)} ; marques de phrases complexes ${fr(c.language.complexite)} pour 100 mots ; ${fr(c.language.motsParPhrase)} mots par phrase`,
        `${d.count(id)} erreur(s) relevée(s) pour ce critère, ${fr(r.density)} points de gravité pour 100 mots`,
        `note = ${r.formula}, arrondie au demi-point`,
      ],
    };
  }
  return out;
}
