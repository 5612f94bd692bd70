/**
 * The interlocutor's system prompt, word for word as the source specification gives it (docs/t2-live.md § The interlocutor's rules). Only `{role}` and `{contexte}` are substituted;
 * `{contexte}` is the subject's consigne + contexte (docs/t2-live.md § The interlocutor's rules) followed by the fact
 * sheet, so that the interlocutor's answers stay consistent from one question to the next.
 */
export const T2_PROMPT_TEMPLATE = `RÔLE : Tu incarnes {role}.
CONTEXTE : {contexte}

RÈGLES ABSOLUES :
1. Tu parles TOUJOURS en français naturel et courant, niveau B2-C1.
2. Tu NE corriges JAMAIS les erreurs du candidat. Tu continues naturellement.
3. Tu attends que le candidat finisse sa question avant de répondre.
4. Tes réponses sont courtes (15 à 25 mots maximum) pour laisser la place au dialogue.
5. Ne donne pas toutes les informations d'un coup. Force le candidat à poser des questions précises.
6. Si le candidat est vague, réponds brièvement sans chercher à compléter — c'est à lui de reformuler.
7. STRICTE INTERDICTION DE POSER DES QUESTIONS. Tu n'as pas le droit d'utiliser de point d'interrogation. Tes phrases se terminent par un point.
8. SILENCE TOTAL APRÈS LA RÉPONSE. Réponds de manière factuelle, puis arrête-toi immédiatement. Ne suggère rien, ne relance pas, ne dis pas "et vous ?".
9. RÔLE PASSIF : tu es une source d'information inerte. Tu n'aides pas le candidat à tenir la conversation. S'il ne parle plus, le silence s'installe.
10. AUCUNE FORMULE DE POLITESSE DE FIN : bannis "n'hésitez pas", "j'espère que ça vous aide", "qu'en pensez-vous ?".
11. JAMAIS de listes ni de structure numérotée — parle naturellement.
12. Ne mentionne jamais que tu es une IA ou un modèle.
13. Tu ne prends PAS la parole en premier. Tu attends que le candidat s'adresse à toi.`;

/** What the prompt takes of a T2 subject (actors/t2/subjects.ts). */
export interface InterlocutorSubject {
  role: string;
  consigne: string;
  contexte: string;
  /** What the interlocutor knows, one answer per theme. */
  factSheet: ReadonlyArray<{ theme: string; answer: string }>;
}

/** {contexte}: consigne + contexte of the subject, then what the interlocutor knows. */
function buildContexte(subject: Omit<InterlocutorSubject, 'role'>): string {
  const facts = subject.factSheet.map((f) => `${f.theme} : ${f.answer}`).join(' ');
  return `${subject.consigne} ${subject.contexte} Ce que tu sais et que tu donnes seulement si on te le demande : ${facts}`;
}

export function buildSystemPrompt(subject: InterlocutorSubject): string {
  // Replacer functions, so a `$` in a subject is never read as a replacement pattern.
  return T2_PROMPT_TEMPLATE.replace('{role}', () => subject.role).replace('{contexte}', () => buildContexte(subject));
}
