import type { Completion, Measured } from './ceiling.js';
import type { OralComponents } from './oralComponents.js';
import type { OralTaskMeasures, WrittenTaskMeasures } from './task.js';

/**
 * Each criterion's justification as the candidate reads it: what went well or not, and what to do,
 * in plain French. The figures and the formula behind a score go to the criterion's `details`.
 */

export interface Figures {
  errors: number;
  density: number;
  words: number;
  written?: WrittenTaskMeasures;
}

const errorsSentence = (n: number, what: string) =>
  n === 0 ? `aucune erreur de ${what} n'a été repérée par les détecteurs` : n === 1 ? `une erreur de ${what} a été repérée` : `${n} erreurs de ${what} ont été repérées`;

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function writtenFeedback(critere: string, score: number, f: Figures): string {
  const w = f.written;
  switch (critere) {
    case 'adequation_tache': {
      if (w && w.mots < w.min) return `Votre texte est trop court (${w.mots} mots pour un minimum de ${w.min}) : développez chaque point de la consigne avec des détails et des exemples.`;
      if (w && w.motsConsigne >= 5 && w.motsConsigneRepris === 0) return 'Votre texte ne traite pas ce que demande la consigne : relisez-la et répondez à chacun de ses points.';
      if (w && w.documents > 0 && w.documentsRepris < w.documents) return `Votre texte ne s'appuie pas sur les deux documents (${w.documentsRepris === 0 ? 'aucun n\'est repris' : 'un seul est repris'}) : présentez le point de vue de chacun avant de donner le vôtre.`;
      if (w && w.mots > w.max) return `Votre texte dépasse la limite de ${w.max} mots (${w.mots}) : gardez l'essentiel et supprimez les répétitions.`;
      if (f.errors === 0 && score < 13) return 'Votre texte respecte la longueur et le sujet demandés, mais reste simple : développez vos idées avec des exemples précis et un vocabulaire plus varié.';
      return f.errors === 0
        ? 'Votre texte respecte la longueur demandée, reprend le sujet de la consigne et en a la forme attendue.'
        : 'Votre texte traite le sujet demandé, mais sa forme est à revoir (formule d\'appel, clôture, paragraphes ou registre) : voyez les erreurs signalées.';
    }
    case 'coherence_cohesion':
      return score >= 13
        ? 'Le texte se lit facilement et aucun problème d\'enchaînement n\'a été repéré ; variez vos connecteurs pour bien montrer la progression des idées.'
        : `Le texte est difficile à suivre par endroits : ${errorsSentence(f.errors, 'construction ou d\'enchaînement')}, et les erreurs de langue gênent la lecture.`;
    case 'competence_lexicale':
      return `${cap(errorsSentence(f.errors, 'vocabulaire ou d\'orthographe'))}${score >= 13 ? ' : le vocabulaire est bien maîtrisé.' : ' : relisez les mots signalés et apprenez leur forme correcte.'}`;
    case 'competence_grammaticale':
      return `${cap(errorsSentence(f.errors, 'grammaire'))}${score >= 13 ? ' : la grammaire est bien maîtrisée.' : ' : revoyez surtout les accords et les formes verbales signalés.'}`;
    default:
      return `${cap(errorsSentence(f.errors, 'langue'))}.`;
  }
}

export interface OralFigures {
  tache: string;
  measures: OralTaskMeasures;
  components: OralComponents;
  errors: number;
  completion: Completion;
}

const plural = (n: number, one: string, many: string) => `${n} ${n > 1 ? many : one}`;

function interaction(o: OralFigures): string {
  const m = o.measures;
  if (o.tache !== 'EO_T2') {
    if (o.completion === 'insuffisante') return 'Vous avez trop peu parlé pour que l\'on puisse suivre un propos organisé : développez vos réponses avec des exemples.';
    if (o.completion === 'hors_sujet') return 'Vos réponses s\'éloignent du thème de la question : reprenez-le et développez-le avec des exemples.';
    return o.components.complexity >= 0.5
      ? 'Votre propos est développé et organisé, avec des connecteurs qui montrent la progression de vos idées.'
      : 'Votre propos reste une suite de phrases simples : reliez vos idées avec des connecteurs (d\'abord, ensuite, par contre, donc).';
  }
  if (o.completion === 'hors_sujet') return 'Vous avez présenté votre situation sans interroger l\'interlocuteur : dans cette tâche, c\'est en posant des questions sur le sujet et en réagissant aux réponses que vous montrez votre capacité à interagir.';
  if (o.completion === 'insuffisante') return `L'échange est trop court pour juger votre capacité à interagir (${plural(m.questionsPertinentes, 'question', 'questions')} sur le sujet) : posez des questions variées sur chaque point du sujet et réagissez aux réponses.`;
  const got = `Vous avez posé ${plural(m.questionsPertinentes, 'question', 'questions')} sur le sujet et obtenu ${m.faitsObtenus} des ${m.faitsTotal} informations`;
  if (m.relances >= 3) return `${got} ; vous rebondissez sur les réponses de l'interlocuteur, ce qui rend l'échange naturel.`;
  if (m.relances >= 1) return `${got} ; reprenez plus souvent ses réponses (« donc… », « si je comprends bien… ») avant de passer à la question suivante.`;
  return `${got} ; vous enchaînez les questions sans réagir aux réponses : reprenez une information avant la question suivante.`;
}

export function oralFeedback(critere: string, score: number, o: OralFigures): string {
  const short = o.measures.mots < 40;
  switch (critere) {
    case 'coherence_cohesion':
      return interaction(o);
    case 'lexique': {
      const range = short
        ? 'Vous avez trop peu parlé pour montrer l\'étendue de votre vocabulaire'
        : o.components.range >= 0.75 ? 'Votre vocabulaire est varié et précis'
          : o.components.range >= 0.45 ? 'Votre vocabulaire est adapté à la situation mais reste courant : cherchez des mots plus précis'
            : 'Votre vocabulaire est simple et se répète : apprenez les mots du sujet (tarif, horaires, conditions, inscription)';
      return `${range} ; ${errorsSentence(o.errors, 'vocabulaire')}.`;
    }
    case 'morphosyntaxe': {
      const forms = short
        ? 'Vos phrases sont trop peu nombreuses pour montrer ce que vous maîtrisez'
        : o.components.complexity >= 0.6 ? 'Vous employez des structures variées (questions avec inversion, conditionnel de politesse, subordonnées)'
          : o.components.complexity >= 0.25 ? 'Vos phrases sont surtout simples : essayez le conditionnel de politesse (« pourriez-vous… ») et les subordonnées'
            : 'Vos phrases sont très courtes et simples : construisez des questions complètes (« Est-ce que… ? », « Quels sont… ? »)';
      return `${forms} ; ${errorsSentence(o.errors, 'grammaire')}.`;
    }
    default:
      return score >= 10 ? 'Critère satisfaisant.' : 'Critère à travailler.';
  }
}

/** Strengths the task measures show (oral): what the candidate did, not the absence of an error. */
export function taskStrengths(measured: Measured, components?: OralComponents): string[] {
  const m = measured.oral;
  if (!m) return [];
  const out: string[] = [];
  if (m.questionsPertinentes >= 5) out.push('De nombreuses questions précises sur le sujet');
  if (m.faitsObtenus / m.faitsTotal >= 0.8) out.push("L'essentiel des informations du sujet obtenu");
  if (m.relances >= 3) out.push("Des relances sur les réponses de l'interlocuteur");
  if (components && components.complexity >= 0.6) out.push('Des structures variées (inversion, conditionnel, subordonnées)');
  if (components && components.range >= 0.7 && m.mots >= 60) out.push('Un vocabulaire varié');
  return out;
}

/** The first piece of advice when the task is not done: what to do next time. */
export function taskAdvice(measured: Measured, tache: string): string | undefined {
  const { niveau } = measured.completion;
  if (measured.written) {
    if (niveau === 'hors_sujet') return 'Relisez la consigne et répondez à chacun de ses points : destinataire, objet et informations demandées.';
    return undefined; // the length advice comes from the length finding
  }
  if (tache !== 'EO_T2') {
    if (niveau === 'complete') return undefined;
    return 'Parlez plus longtemps sur le thème demandé : une idée, un exemple, puis une autre idée.';
  }
  if (niveau === 'hors_sujet') return "Dans cette tâche, interrogez l'interlocuteur : chaque réplique doit chercher une information du sujet (prix, horaires, conditions…).";
  if (niveau === 'insuffisante') return "Posez une dizaine de questions sur tous les points du sujet et réagissez à chaque réponse jusqu'à la fin du temps.";
  if (niveau === 'partielle') return "Continuez l'échange jusqu'à la fin du temps : chaque point du sujet mérite une question et une relance.";
  if ((measured.oral?.relances ?? 0) < 2) return 'Reprenez la réponse de l\'interlocuteur avant de poser la question suivante (« Donc le loyer est de… Et les charges ? »).';
  return undefined;
}
