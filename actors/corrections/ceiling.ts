import type { Production } from '../../prompts/corrections/tasks.js';
import { oralMeasures, spokenWords, stems, writtenMeasures, type OralTaskMeasures, type WrittenTaskMeasures } from './task.js';

/**
 * Task completion and its ceiling: a production that does not do the task cannot reach a high
 * level, whatever its accuracy — with or without a model. `raison` is the one sentence the report
 * shows the candidate; `mesures` are the figures behind it.
 *
 * Oral role-play (EO_T2), the candidate's job is to obtain the information by asking. The share of
 * the task done is max(information obtained / the sheet's facts, relevant questions / 6):
 *   - off-subject: three questions or more, at least two thirds of them off the subject         → 5/20
 *   - off-task: at most one question on the subject, yet 40 words or more (a monologue), or
 *     two questions, one fact at most, and 80 words or more                                      → 5/20
 *   - insufficient: at most one question on the subject, under 30 words, or two questions in
 *     under 60 words                                                          → min(5, 3 + 9 × share)
 *   - partial: under two thirds of the task done                                 → 3 + 9 × share
 * A ceiling is a band: the criteria are scaled into it (assemble.ts), not clipped.
 * Other oral tasks (EO_T1 interview, EO_T3 point of view), speaking long enough on the topic:
 *   under 30 words → 5/20; under half the expected words, or off the instruction's topic → 10/20.
 * Written tasks: under half the minimum of words → 5/20; under the minimum → 10/20 (the taxonomy's
 * « score plafonné automatiquement »); an instruction of five content words or more, none of which
 * the text takes up → 6/20.
 */

export type Completion = 'complete' | 'partielle' | 'insuffisante' | 'hors_sujet';

interface TaskCompletion {
  niveau: Completion;
  /** The highest global score the production can get, or null when the task is done. */
  plafond: number | null;
  /** One plain French sentence for the candidate, null when there is no ceiling. */
  raison: string | null;
  mesures: Record<string, number>;
}

/**
 * An instruction needs this many content words for « none taken up » to mean « off the
 * instruction »: on the 64 labelled written productions, six on-topic texts share no word with an
 * instruction of three or four content words (« proposer une sortie le week-end » answered with
 * « samedi, un marché de Noël »).
 */
const MIN_INSTRUCTION_WORDS = 5;

/** Words a candidate is expected to say in the tasks without questions (about 2 and 4½ minutes). */
const EXPECTED_WORDS = { EO_T1: 120, EO_T3: 200 } as const;

const plural = (n: number, one: string, many: string) => `${n} ${n > 1 ? many : one}`;

/** Relevant questions that make the role-play's task done (with the information they bring). */
const QUESTIONS_DONE = 6;
/** Below this share of the task done, the production is capped (`plafond = 3 + 9 × share`). */
const SHARE_DONE = 2 / 3;

/** How much of the role-play's task was done, 0–1: the information obtained, or the relevant questions asked. */
export function taskShare(m: OralTaskMeasures): number {
  return Math.min(1, Math.max(m.faitsObtenus / m.faitsTotal, m.questionsPertinentes / QUESTIONS_DONE));
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const frNum = (x: number) => String(round1(x)).replace('.', ',');

function oralCompletion(m: OralTaskMeasures): Omit<TaskCompletion, 'mesures'> {
  const q = m.questionsPertinentes;
  const share = taskShare(m);
  const plafond = round1(3 + 9 * share);
  const offSubject = m.questions - q;
  if (m.questions >= 3 && offSubject >= 2 * q && q <= 2) {
    return { niveau: 'hors_sujet', plafond: 5, raison: `Vous avez posé ${plural(m.questions, 'question', 'questions')}, mais ${q === 0 ? 'aucune ne portait' : q === 1 ? 'une seule portait' : `seulement ${q} portaient`} sur le sujet (questions hors sujet) : la tâche, obtenir les informations du sujet, n'est pas réalisée, donc la note ne peut pas dépasser 5/20.` };
  }
  if ((q <= 1 && m.mots >= 40) || (q <= 2 && m.faitsObtenus <= 1 && m.mots >= 80)) {
    return { niveau: 'hors_sujet', plafond: 5, raison: `Vous avez surtout parlé de vous sans interroger votre interlocuteur (${q === 0 ? 'aucune question' : q === 1 ? 'une seule question' : `${q} questions`} sur le sujet) : la tâche, obtenir des informations en posant des questions, n'est pas réalisée, donc la note ne peut pas dépasser 5/20.` };
  }
  if (q <= 1 || m.mots < 30 || (q <= 2 && m.mots < 60)) {
    const top = Math.min(5, plafond);
    const asked = q === 0 ? "Vous n'avez posé aucune question sur le sujet" : `Vous n'avez posé ${q === 1 ? "qu'une question" : `que ${q} questions`} sur le sujet`;
    return { niveau: 'insuffisante', plafond: top, raison: `${asked} et prononcé ${plural(m.mots, 'mot', 'mots')} : la tâche demande d'obtenir les informations en posant une dizaine de questions pendant plusieurs minutes, donc la note ne peut pas dépasser ${frNum(top)}/20.` };
  }
  if (share < SHARE_DONE) {
    return { niveau: 'partielle', plafond, raison: `Vous avez posé ${plural(q, 'question', 'questions')} sur le sujet et obtenu ${m.faitsObtenus} des ${m.faitsTotal} informations : l'échange s'est arrêté avant d'avoir fait le tour du sujet, donc la note ne peut pas dépasser ${frNum(plafond)}/20.` };
  }
  return { niveau: 'complete', plafond: null, raison: null };
}

function monologueCompletion(tache: 'EO_T1' | 'EO_T3', mots: number, onTopic: boolean): Omit<TaskCompletion, 'mesures'> {
  const expected = EXPECTED_WORDS[tache];
  if (mots < 30) {
    return { niveau: 'insuffisante', plafond: 5, raison: `Vous n'avez prononcé que ${plural(mots, 'mot', 'mots')} : la tâche demande de parler plusieurs minutes, donc la note ne peut pas dépasser 5/20.` };
  }
  if (!onTopic) {
    return { niveau: 'hors_sujet', plafond: 10, raison: 'Vos réponses ne reprennent pas le thème de la question posée : la tâche n\'est pas réalisée, donc la note ne peut pas dépasser 10/20.' };
  }
  if (mots < expected / 2) {
    return { niveau: 'partielle', plafond: 10, raison: `Vous avez prononcé ${mots} mots, moins de la moitié de ce que la tâche demande (environ ${expected}) : la note ne peut donc pas dépasser 10/20.` };
  }
  return { niveau: 'complete', plafond: null, raison: null };
}

function writtenCompletion(m: WrittenTaskMeasures): Omit<TaskCompletion, 'mesures'> {
  if (m.mots < m.min / 2) {
    return { niveau: 'insuffisante', plafond: 5, raison: `Votre texte ne compte que ${plural(m.mots, 'mot', 'mots')} alors que la tâche en demande au moins ${m.min} : quelques lignes ne suffisent pas à réaliser la tâche, donc la note ne peut pas dépasser 5/20.` };
  }
  if (m.motsConsigne >= MIN_INSTRUCTION_WORDS && m.motsConsigneRepris === 0) {
    return { niveau: 'hors_sujet', plafond: 6, raison: 'Votre texte ne parle pas de ce que demande la consigne : la tâche n\'est pas réalisée, donc la note ne peut pas dépasser 6/20.' };
  }
  if (m.mots < m.min) {
    return { niveau: 'partielle', plafond: 10, raison: `Votre texte compte ${m.mots} mots, sous le minimum de ${m.min} demandé : la note ne peut donc pas dépasser 10/20.` };
  }
  return { niveau: 'complete', plafond: null, raison: null };
}

export interface Measured {
  completion: TaskCompletion;
  oral?: OralTaskMeasures;
  written?: WrittenTaskMeasures;
}

/** The task measures of a production and the ceiling they set. */
export function measureTask(p: Production): Measured {
  if (p.epreuve === 'EE') {
    const written = writtenMeasures(p);
    return { written, completion: { ...writtenCompletion(written), mesures: { ...written } } };
  }
  if (p.tache === 'EO_T2') {
    const oral = oralMeasures(p.transcript, p.sujet, p.consigne);
    return { oral, completion: { ...oralCompletion(oral), mesures: { ...oral } } };
  }
  const oral = oralMeasures(p.transcript, p.sujet);
  const asked = stems([p.consigne, ...p.transcript.filter((t) => t.speaker === 'interlocutor').map((t) => t.text)].join(' '));
  const said = stems(p.transcript.filter((t) => t.speaker === 'candidate').map((t) => t.text).join(' '));
  let shared = 0;
  for (const s of asked) if (said.has(s)) shared += 1;
  const mots = spokenWords(p);
  return { oral, completion: { ...monologueCompletion(p.tache, mots, asked.size < 3 || shared > 0), mesures: { ...oral, motsThemeRepris: shared } } };
}
