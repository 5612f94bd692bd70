import { z } from 'zod';
import { CRITERE_LABEL, ENTRIES, ORAL_CRITERE_LABEL, TAXONOMY_VERSION, WRITTEN_CRITERIA, WRITTEN_ONLY_CODES, oralCritereOf } from '../taxonomy.js';
import { oralModelOutputSchema, writtenModelOutputSchema } from './modelOutput.js';
import type { Production } from './tasks.js';
import type { ChatMessage } from '../chatMessage.js';

/**
 * The « prompt maître »: French instructions built from the taxonomy data and the report schema,
 * so neither the code list nor the JSON format is typed twice. The system block is stable per
 * (épreuve) and so cacheable; the production goes in the user message.
 */

export const PROMPT_VERSION = 'correction-3';

const TASK_LABEL: Record<Production['tache'], string> = {
  EE_T1: 'Expression écrite, tâche 1 (message de 60 à 120 mots)',
  EE_T2: 'Expression écrite, tâche 2 (article, récit ou lettre de 120 à 150 mots)',
  EE_T3: 'Expression écrite, tâche 3 (texte argumentatif de 120 à 180 mots)',
  EO_T1: 'Expression orale, tâche 1 (entretien dirigé)',
  EO_T2: "Expression orale, tâche 2 (exercice en interaction : le candidat pose des questions à l'interlocuteur)",
  EO_T3: "Expression orale, tâche 3 (expression d'un point de vue)",
};

/** The code list, grouped by criterion and section, straight from the taxonomy. */
function codeList(epreuve: 'EE' | 'EO'): string {
  const lines: string[] = [];
  for (const critere of WRITTEN_CRITERIA) {
    lines.push(`\n### critere: "${critere}" — ${CRITERE_LABEL[critere]}`);
    let section = '';
    for (const e of ENTRIES.filter((x) => x.critere === critere)) {
      if (epreuve === 'EO' && WRITTEN_ONLY_CODES.has(e.code)) continue;
      if (e.section !== section) {
        section = e.section;
        lines.push(`${section} :`);
      }
      const oral = epreuve === 'EO' && e.code !== 'autre' ? ` → compte pour « ${ORAL_CRITERE_LABEL[oralCritereOf(critere, e.code)]} »` : '';
      lines.push(`- ${e.code} : ${e.description}${oral}`);
    }
  }
  return lines.join('\n');
}

/**
 * Task completion, for every criterion: what an examiner checks before the language. palabre
 * measures it too and caps the global score of a production that does not do the task, whatever
 * the model's marks (actors/corrections/ceiling.ts).
 */
const TASK_RULES: Record<'EE' | 'EO', string> = {
  EO: `## Réalisation de la tâche (à prendre en compte dans chaque critère)
Note d'abord ce que le candidat a fait de la tâche, puis la qualité de sa langue :
- Tâche 2 (interaction) : le candidat doit OBTENIR LES INFORMATIONS en posant des questions pendant plusieurs minutes. Compte les questions pertinentes sur le sujet, la part des informations du sujet qu'il a obtenues, combien il a parlé (mots, tours, durée), ses relances (questions de suivi, reformulations comme « si je comprends bien… », réactions aux réponses).
- Tâches 1 et 3 : le candidat doit parler assez longtemps, sur le thème demandé, en développant ses idées.
- Une production insuffisante (une salutation et une question, quelques phrases) ne dépasse pas 5/20 sur aucun critère, même sans erreur. Un monologue où le candidat parle de lui sans interroger l'interlocuteur, ou des questions hors sujet (tâche 2), ne dépassent pas 5/20, quelle que soit l'aisance. Un échange arrêté après deux ou trois questions ne dépasse pas 7 à 8/20. Un texte simple et correct, sans vocabulaire varié ni phrases complexes, vaut environ 12/20, pas davantage.
- Chaque justification est un retour en français simple adressé au candidat (« Vous avez… »), qui dit ce qui a été fait et ce qu'il faut améliorer ; jamais une formule ni un calcul.`,
  EE: `## Réalisation de la tâche (à prendre en compte dans chaque critère)
- Vérifie la longueur (limites de mots de la tâche) et que le texte répond à la consigne (destinataire, objet, chaque point demandé).
- Un texte de quelques lignes (moins de la moitié du minimum) ne dépasse pas 5/20 ; un texte qui ne traite pas la consigne ne dépasse pas 6/20 ; un texte sous le minimum de mots ne dépasse pas 10/20, même sans erreur.
- Chaque justification est un retour en français simple adressé au candidat (« Votre texte… »), qui dit ce qui a été fait et ce qu'il faut améliorer ; jamais une formule ni un calcul.`,
};

function systemPrompt(epreuve: 'EE' | 'EO'): string {
  const schema = JSON.stringify(z.toJSONSchema(epreuve === 'EE' ? writtenModelOutputSchema : oralModelOutputSchema));
  const criteria = epreuve === 'EE'
    ? WRITTEN_CRITERIA.map((c) => `- ${c} : ${CRITERE_LABEL[c]} (25 %)`).join('\n')
    : [
      `- coherence_cohesion : ${ORAL_CRITERE_LABEL.coherence_cohesion} (25 %)`,
      `- lexique : ${ORAL_CRITERE_LABEL.lexique} (25 %)`,
      `- morphosyntaxe : ${ORAL_CRITERE_LABEL.morphosyntaxe} (25 %)`,
      '- phonologie (25 %) : NE PAS ÉVALUER — elle demande l’audio ; palabre la marque « non évaluée ».',
    ].join('\n');
  return `Tu es correcteur certifié du TCF Canada. Tu évalues une production de candidat selon les critères officiels et tu nommes chaque erreur avec la taxonomie fermée ci-dessous (version ${TAXONOMY_VERSION}).

## Critères à noter (chacun sur 20, avec une justification courte)
${criteria}

${TASK_RULES[epreuve]}

## Taxonomie fermée des erreurs
${codeList(epreuve)}

## Règles obligatoires
1. Chaque erreur a un code de cette liste, et un seul : choisis le plus précis.
2. "critere" est le critère auquel appartient le code dans la liste (et non un critère oral).
3. Si aucune entrée ne convient, utilise le code "autre" du critère concerné avec une "description" non nulle. Pour tout autre code, "description" vaut null.
4. "extrait" recopie caractère pour caractère un passage de la production${epreuve === 'EO' ? ' (uniquement les tours du CANDIDAT)' : ''} : n'invente ni ne reformule aucune citation.
5. "correction" donne la forme corrigée ou la manière de corriger.
6. "points_forts" : de 1 à 5 points forts réels. "conseils" : exactement 3 conseils concrets et personnalisés.
${epreuve === 'EO' ? "7. La transcription vient d'une reconnaissance vocale : n'évalue ni l'orthographe, ni la ponctuation, ni les majuscules. N'évalue que les tours du CANDIDAT ; les tours de l'INTERLOCUTEUR donnent seulement le contexte.\n" : ''}
## Format de la réponse
Réponds uniquement par un objet JSON conforme à ce schéma JSON, sans texte autour :
${schema}`;
}

function userPrompt(p: Production): string {
  const body = p.epreuve === 'EE'
    ? `Production du candidat :\n"""\n${p.texte}\n"""`
    : `${factsOf(p)}Transcription du dialogue :\n"""\n${p.transcript.map((t) => `${t.speaker === 'candidate' ? 'CANDIDAT' : 'INTERLOCUTEUR'} : ${t.text}`).join('\n')}\n"""`;
  return `Tâche : ${TASK_LABEL[p.tache]}\nConsigne : ${p.consigne}\n\n${body}\n\nÉvalue cette production et réponds par l'objet JSON demandé.`;
}

/** The subject's fact sheet, when known: what the candidate of the role-play could obtain. */
function factsOf(p: Extract<Production, { epreuve: 'EO' }>): string {
  if (!p.sujet?.faits.length) return '';
  return `Informations que l'interlocuteur pouvait donner (fiche du sujet, ${p.sujet.faits.length}) :\n${p.sujet.faits.map((f) => `- ${f.theme} : ${f.answer}`).join('\n')}\n\n`;
}

export interface CorrectionPrompt {
  system: string;
  messages: ChatMessage[];
}

export function buildCorrectionPrompt(p: Production): CorrectionPrompt {
  return { system: systemPrompt(p.epreuve), messages: [{ role: 'user', content: userPrompt(p) }] };
}

/** The repair round's instruction: the model sees its own answer, then this, once. */
export function repairInstruction(errors: string[]): string {
  return `Ta réponse ne respecte pas les règles :\n${errors.map((e) => `- ${e}`).join('\n')}\n\nRenvoie l'objet JSON complet, corrigé, sans texte autour. Les extraits doivent être copiés mot pour mot de la production.`;
}
