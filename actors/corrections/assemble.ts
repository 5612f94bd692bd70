import { TAXONOMY_VERSION } from '../../prompts/taxonomy.js';
import { PROMPT_VERSION } from '../../prompts/corrections/gradingPrompt.js';
import { DETECTORS } from './detectors/allDetectors.js';
import type { Finding } from './detectors/context.js';
import { candidateText, countWords, normaliseQuote } from './production.js';
import { type Production } from '../../prompts/corrections/tasks.js';
import { measureTask, type Measured } from './ceiling.js';
import { taskAdvice, taskStrengths } from './feedback.js';
import { ORAL, SCORING, densityScores, oralComponents, oralScores, type OralParams, type ScoringParams } from './scoring.js';
import type { ModelOutput } from '../../prompts/corrections/modelOutput.js';
import { PHONOLOGIE_NOT_ASSESSED, criteriaOf, globalScore, nclcOf } from './report.js';
import { reportSchema, type FallbackReason, type Report, type ReportErrorWithOrigin } from '../../machines/correctionReport.js';

/**
 * Builds the report palabre returns and stores: the model's grading (when valid) merged with the
 * detectors' findings without duplicates, or the detectors alone — marked as such, with the reason.
 * Whatever comes out is parsed by `reportSchema`: a half-valid report never leaves this module.
 */


const FALLBACK_TEXT: Readonly<Record<FallbackReason, string>> = {
  offline_provider: 'fournisseur hors ligne (aucune clé de modèle configurée)',
  model_unreachable: 'modèle injoignable',
  invalid_after_repair: 'réponse du modèle invalide, même après une reprise',
  timeout: 'délai de correction dépassé',
};

export interface AssembleInput {
  production: Production;
  findings: Finding[];
  model?: { output: ModelOutput; name: string };
  fallback?: { reason: FallbackReason; detail?: string };
  /** Other constants for the offline scores (the calibration bench); the shipped ones otherwise. */
  scoring?: ScoringParams;
  oral?: OralParams;
}

/** Codes that judge the whole text: two findings of one of these are the same error. */
const WHOLE_TEXT = new Set(['longueur_insuffisante', 'longueur_excessive', 'salutation_absente', 'cloture_absente', 'paragraphes_absents', 'structure_absente', 'connecteurs_repetes', 'repetition_lexicale', 'format_non_respecte']);
/** The taxonomy lists « texte bloc sans paragraphes » twice (adéquation and cohérence): one error. */
const SAME_AS: Readonly<Record<string, string>> = { structure_absente: 'paragraphes_absents' };
const canonical = (code: string) => SAME_AS[code] ?? code;

function isDuplicate(a: { code: string; extrait: string }, b: { code: string; extrait: string }): boolean {
  if (canonical(a.code) !== canonical(b.code)) return false;
  if (WHOLE_TEXT.has(a.code) || WHOLE_TEXT.has(b.code)) return true;
  const x = normaliseQuote(a.extrait).toLowerCase();
  const y = normaliseQuote(b.extrait).toLowerCase();
  return x.includes(y) || y.includes(x);
}

/**
 * Under a ceiling, the share of the band every production gets: even the weakest production of a
 * band is judged against that band, the rest is earned by its language (scores are scaled into it).
 */
const BAND_FLOOR = 0.3;

function toReportError(f: Finding): ReportErrorWithOrigin {
  return { code: f.code, critere: f.critere, description: f.description ?? null, extrait: f.extrait, correction: f.correction, origine: 'detecteur', detecteur: f.detecteur };
}

/** Model errors first (they carry the richer explanation); detector findings the model missed are added. */
export function mergeErrors(modelErrors: ModelOutput['erreurs'], findings: Finding[]): ReportErrorWithOrigin[] {
  const out: ReportErrorWithOrigin[] = modelErrors.map((e) => ({ ...e, origine: 'modele' as const }));
  for (const f of findings) {
    if (out.some((e) => isDuplicate(e, f))) continue;
    out.push(toReportError(f));
  }
  return out;
}

const STRENGTHS: Readonly<Record<string, string>> = {
  longueur_insuffisante: 'Longueur conforme à la consigne',
  salutation_absente: "Formule d'appel présente",
  cloture_absente: 'Formule de clôture présente',
  paragraphes_absents: 'Texte organisé en paragraphes',
  abreviations_sms: "Pas d'abréviation de type SMS",
  negation_incomplete: 'Négations complètes (ne … pas)',
  anglicisme: "Pas d'anglicisme relevé",
  faute_orthographe_courante: "Pas de faute d'orthographe relevée par le dictionnaire",
  majuscules_incorrectes: 'Majuscules bien placées',
  point_absent: 'Phrases bien délimitées par la ponctuation',
  connecteurs_repetes: 'Connecteurs variés',
  confusion_homophones: "Pas de confusion d'homophones relevée",
};

const ADVICE: Readonly<Record<string, string>> = {
  longueur_insuffisante: 'Respectez le nombre de mots demandé : développez chaque point de la consigne avec un exemple.',
  longueur_excessive: 'Restez dans la limite de mots : une idée par phrase, sans répétition.',
  salutation_absente: "Ouvrez toujours un message par une formule d'appel adaptée au destinataire.",
  cloture_absente: 'Terminez par une formule de clôture et votre signature.',
  paragraphes_absents: 'Organisez le texte en paragraphes : introduction, développement, conclusion.',
  abreviations_sms: 'Écrivez tous les mots en entier : les abréviations SMS sont pénalisées.',
  negation_incomplete: "Employez les deux parties de la négation : « ne … pas », « ne … jamais », « ne … rien ».",
  anglicisme: 'Remplacez les mots anglais par leur équivalent français (réunion, courriel, vérifier).',
  faute_orthographe_courante: "Relisez-vous en vérifiant l'orthographe des mots courants (consonnes doubles, accents).",
  majuscules_incorrectes: 'Majuscule en début de phrase et aux noms propres ; minuscule aux jours et aux mois.',
  point_absent: 'Terminez chaque phrase par un point avant d’en commencer une autre.',
  phrase_trop_longue: 'Coupez les phrases trop longues : une idée principale par phrase.',
  connecteurs_repetes: 'Variez les connecteurs (cependant, de plus, par conséquent, en effet).',
  repetition_lexicale: 'Évitez de répéter le même mot : utilisez des synonymes ou des pronoms.',
  confusion_homophones: 'Vérifiez les homophones : a/à, ça/sa, on/ont, et/est.',
  tutoiement_inadequat: 'Dans un écrit formel, vouvoyez votre destinataire du début à la fin.',
  enonce_copie: 'Reformulez la consigne avec vos propres mots au lieu de la recopier.',
  ponctuation_incorrecte: "N'employez qu'un seul signe de ponctuation à la fois.",
};
const GENERIC_ADVICE = [
  'Relisez votre production en vous concentrant sur les accords (sujet-verbe, nom-adjectif).',
  'Enrichissez votre vocabulaire : remplacez les mots très courants (faire, chose, bien) par des mots précis.',
  'Structurez vos idées avec des connecteurs logiques variés.',
];

function strengthsFrom(production: Production, findings: Finding[], measured: Measured): string[] {
  const found = new Set(findings.map((f) => f.code));
  const fromTask = production.epreuve === 'EO' ? taskStrengths(measured, oralComponents(production, measured)) : [];
  // An error nobody could make in a few words is no strength: the absence of findings counts only
  // for a production that does the task (and, spoken, is long enough to have shown it).
  const done = (measured.completion.niveau === 'complete' || measured.completion.niveau === 'partielle') && (production.epreuve === 'EE' || (measured.oral?.mots ?? 0) >= 100);
  const checked = done ? DETECTORS.filter((d) => d.applies(production)).flatMap((d) => d.codes) : [];
  const absent = checked.filter((c) => !found.has(c) && STRENGTHS[c] && !(c === 'longueur_insuffisante' && found.has('longueur_excessive'))).map((c) => STRENGTHS[c]!);
  const out = [...fromTask, ...absent];
  if (out.length) return out.slice(0, 5);
  return [production.epreuve === 'EO' ? 'Une prise de parole en français, polie et compréhensible' : 'Un texte en français soumis à la correction'];
}

function adviceFrom(errors: ReportErrorWithOrigin[], first: string | undefined): string[] {
  const freq = new Map<string, number>();
  for (const e of errors) freq.set(e.code, (freq.get(e.code) ?? 0) + 1);
  const ranked = [...freq.entries()].sort((a, b) => b[1] - a[1]).map(([c]) => ADVICE[c]).filter((a): a is string => Boolean(a));
  return [...new Set([...(first ? [first] : []), ...ranked, ...GENERIC_ADVICE])].slice(0, 3);
}

export function assembleReport(input: AssembleInput): Report {
  const { production, findings } = input;
  const text = candidateText(production);
  const mots = countWords(text);
  const avertissements: string[] = [];
  const fromModel = input.model && !input.fallback ? input.model : undefined;

  const erreurs = fromModel ? mergeErrors(fromModel.output.erreurs, findings) : findings.map(toReportError);
  const measured = measureTask(production);
  const offline = production.epreuve === 'EE'
    ? densityScores(production, findings, mots, input.scoring, measured)
    : oralScores(production, findings, mots, measured, input.oral, input.scoring);
  const scores: Record<string, { score: number; justification: string; details?: string[] }> = fromModel
    ? withTaskDetails(fromModel.output.criteres as Record<string, { score: number; justification: string }>, offline)
    : offline;

  const criteres: Report['criteres'] = {};
  for (const c of criteriaOf(production.epreuve)) {
    if (!c.evalue) {
      criteres[c.id] = { score: 0, justification: PHONOLOGIE_NOT_ASSESSED, evalue: false, poids: c.poids };
      continue;
    }
    const s = scores[c.id]!;
    criteres[c.id] = { score: s.score, justification: s.justification, evalue: true, poids: c.poids, ...(s.details ? { details: s.details } : {}) };
  }
  if (production.epreuve === 'EO') avertissements.push(PHONOLOGIE_NOT_ASSESSED);

  // The task-completion ceiling holds whoever graded: a model cannot lift a production that does
  // not do the task (a greeting and a question, a few lines, a monologue) into a high band.
  // The ceiling is a band, not a clip: each criterion is scaled into it, so the order inside the
  // band is kept and only the best of the band reaches its top.
  const { plafond, raison } = measured.completion;
  let scoreGlobal = globalScore(criteres);
  if (plafond !== null) {
    const top = fromModel ? 20 : production.epreuve === 'EO' ? (input.oral ?? ORAL).bandTop : (input.scoring ?? SCORING).bandTop;
    for (const c of Object.values(criteres)) if (c.evalue) c.score = Math.round(2 * plafond * (BAND_FLOOR + (1 - BAND_FLOOR) * Math.min(1, c.score / top))) / 2;
    scoreGlobal = Math.min(globalScore(criteres), plafond);
  }
  if (raison) avertissements.unshift(raison);

  if (input.fallback) {
    avertissements.unshift(`Rapport établi par les détecteurs automatiques seuls (${FALLBACK_TEXT[input.fallback.reason]}) : les notes sont des estimations, tirées de la réalisation de la tâche (longueur, questions posées, informations obtenues), des erreurs repérées et de la variété de la langue ; la pertinence des idées n'a pas été évaluée.`);
  }

  const report: Report = {
    schema: 'palabre.correction/1',
    epreuve: production.epreuve,
    tache: production.tache,
    taxonomie: TAXONOMY_VERSION,
    promptVersion: PROMPT_VERSION,
    criteres,
    scoreGlobal,
    nclc: nclcOf(scoreGlobal),
    erreurs,
    pointsForts: fromModel ? fromModel.output.points_forts : strengthsFrom(production, findings, measured),
    conseils: fromModel ? fromModel.output.conseils : adviceFrom(erreurs, taskAdvice(measured, production.tache)),
    mots,
    source: fromModel ? 'model' : 'detectors',
    ...(fromModel ? { model: fromModel.name } : {}),
    detectorsOnly: !fromModel,
    ...(input.fallback ? { detectorsOnlyReason: input.fallback.detail ? `${input.fallback.reason}: ${input.fallback.detail}` : input.fallback.reason } : {}),
    avertissements,
    realisation: { niveau: measured.completion.niveau, plafond, raison, mesures: measured.completion.mesures },
  };
  return reportSchema.parse(report);
}

/**
 * A model's criteria keep its scores and justifications; the task measures palabre computed (the
 * first two lines of the offline details: questions, information, words, length) go with them.
 */
function withTaskDetails(model: Record<string, { score: number; justification: string }>, offline: Record<string, { details: string[] }>): Record<string, { score: number; justification: string; details?: string[] }> {
  const out: Record<string, { score: number; justification: string; details?: string[] }> = {};
  for (const [id, c] of Object.entries(model)) {
    const task = (offline[id]?.details ?? []).filter((d) => /^(?:questions|paroles|mots prononcés|longueur|mots de la consigne)/.test(d));
    out[id] = task.length ? { ...c, details: task } : c;
  }
  return out;
}
