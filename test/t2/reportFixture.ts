import { randomUUID } from 'node:crypto';
import { SessionStore } from '../../actors/t2/sessionStore.js';
import { storeOf } from '../../core/store/appStore.js';
import type { T2Env } from './support.js';

/**
 * A stored T2 session as the real pipeline leaves it: a report in the shape of
 * actors/corrections/report.ts (schema palabre.correction/1) wrapped with the T2 facts
 * (actors/t2/t2Wiring.ts), and its transcript. Written with the real SessionStore.
 */
const TRANSCRIPT = [
  { speaker: 'candidate' as const, text: 'Bonjour, je voudrais savoir les horaires du club, si il vous plaît.', atMs: 1200, final: true },
  { speaker: 'interlocutor' as const, text: 'Le club est ouvert de six heures à vingt-trois heures en semaine.', atMs: 4200, final: true },
  { speaker: 'candidate' as const, text: 'Et combien ça coûte pour un mois ?', atMs: 9000, final: true },
  { speaker: 'interlocutor' as const, text: 'L’abonnement mensuel coûte quarante-cinq dollars.', atMs: 11000, final: true },
];

export function modelReport(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema: 'palabre.correction/1',
    epreuve: 'EO',
    tache: 'EO_T2',
    taxonomie: '2026-04',
    criteres: {
      coherence_cohesion: { score: 13, justification: 'Questions enchaînées logiquement, mais peu de connecteurs.', evalue: true, poids: 0.25 },
      lexique: { score: 12, justification: 'Vocabulaire courant et juste, peu varié.', evalue: true, poids: 0.25 },
      morphosyntaxe: { score: 11, justification: 'Interrogation indirecte mal construite à deux reprises.', evalue: true, poids: 0.25 },
      phonologie: { score: 0, justification: "Non évaluée (TD-08) : la phonologie demande l'audio brut ; note fixée à 0 et exclue de la note globale.", evalue: false, poids: 0.25 },
    },
    scoreGlobal: 12,
    nclc: { niveau: '8', source: 'IRCC' },
    erreurs: [
      { code: 'autre', critere: 'competence_grammaticale', description: 'Élision obligatoire devant « il ».', extrait: 'si il vous plaît', correction: 's’il vous plaît', origine: 'modele' },
      { code: 'autre', critere: 'competence_grammaticale', description: 'Interrogation indirecte.', extrait: 'savoir les horaires', correction: 'savoir quels sont les horaires', origine: 'modele' },
    ],
    pointsForts: ['Vous saluez et entrez vite dans le sujet.', 'Vos questions portent sur des informations utiles.'],
    conseils: ['Variez vos formules de question (est-ce que, inversion).', 'Reformulez une réponse pour vérifier que vous avez compris.', 'Posez au moins six questions en cinq minutes.'],
    mots: 19,
    source: 'model',
    model: 'fake-model',
    detectorsOnly: false,
    avertissements: ["Non évaluée (TD-08) : la phonologie demande l'audio brut ; note fixée à 0 et exclue de la note globale."],
    t2: {
      rules: { replies: 2, compliant: 1, allowedRelance: 0, rules: [{ rule: 'no_question', label: '§3 règle 7 — aucune question, aucun point d’interrogation', violations: 1, examples: ['Et vous ?'] }] },
      phonologie: { evaluee: false, note: 'Phonologie non évaluée : l’évaluation demande l’audio brut (TD-08) ; le score porte sur les trois autres critères.' },
      endReason: 'candidate',
      mode: 'text',
    },
    ...overrides,
  };
}

export async function seedSession(env: T2Env, opts: { candidateId: string; sujetId?: string; report?: unknown; audioPath?: string | null; mode?: 'audio' | 'text'; id?: string }): Promise<string> {
  const id = opts.id ?? randomUUID();
  await new SessionStore(storeOf(env.ctx), 'test').save({
    id,
    candidateId: opts.candidateId,
    sujetId: opts.sujetId ?? 'club-de-sport',
    mode: opts.mode ?? 'text',
    endReason: 'candidate',
    productionId: randomUUID(),
    audioPath: opts.audioPath ?? null,
    audioBytes: opts.audioPath ? 44 : 0,
    transcript: TRANSCRIPT,
    rules: null,
    usage: null,
    report: opts.report === undefined ? modelReport() : opts.report,
  });
  return id;
}
