import { describe, expect, it } from 'vitest';
import type { TranscriptTurn } from '../../prompts/corrections/tasks.js';
import { isQuestion, oralMeasures, writtenMeasures } from '../../actors/corrections/task.js';

const T = (speaker: TranscriptTurn['speaker'], text: string): TranscriptTurn => ({ speaker, text });

describe('what counts as a question', () => {
  it('question marks, interrogative openings, inversions and indirect questions; not a « quand » that tells', () => {
    for (const q of ['Et l’assurance ?', 'Combien coûte la session', 'Quels sont vos horaires', 'Pourriez-vous me préciser le loyer', 'Le logement est-il bien desservi', 'Je voudrais savoir si les chats sont acceptés', 'Quand est-ce que la session commence']) {
      expect(isQuestion(q), q).toBe(true);
    }
    for (const s of ['Quand j’étais jeune, je jouais au football', 'Je vous rappelle pour prendre rendez-vous', 'Merci beaucoup, au revoir', 'Allez-y']) {
      expect(isQuestion(s), s).toBe(false);
    }
  });
});

describe('oral measures', () => {
  it('split turns are one turn; a question by intonation counts when it is answered; talk about the talk and deflected questions do not', () => {
    const m = oralMeasures([
      T('interlocutor', 'Club Énergie, bonjour.'),
      T('candidate', 'Bonjour'), T('candidate', 'je voudrais m’inscrire'), T('candidate', 'le prix c’est combien'),
      T('interlocutor', '49 dollars par mois.'),
      T('candidate', 'Vous pouvez répéter ?'),
      T('interlocutor', '49 dollars par mois.'),
      T('candidate', 'Ah oui. Il y a une piscine'),
      T('interlocutor', 'Oui, sauf le mardi matin.'),
      T('candidate', 'Vous aimez votre travail ?'),
      T('interlocutor', 'Je suis là pour vous renseigner sur le club.'),
    ]);
    expect(m.tours).toBe(4);
    expect(m.questions).toBe(4);
    expect(m.questionsPertinentes).toBe(2);
    expect(m.faitsObtenus).toBe(2); // without a sheet: distinct informative answers
    expect(m.faitsTotal).toBe(6);
  });

  it('with a fact sheet: the facts the dialogue obtained, by the answer given or the question answered', () => {
    const sujet = { faits: [
      { theme: 'prix', keywords: ['prix', 'coûte'], answer: 'La session de dix semaines coûte 620 dollars, matériel compris.' },
      { theme: 'horaires', keywords: ['horaires', 'soir'], answer: 'Les cours ont lieu le lundi et le jeudi de dix-huit heures trente à vingt heures trente.' },
      { theme: 'groupe', keywords: ['groupe', 'élèves'], answer: 'Les groupes comptent au maximum douze personnes.' },
    ] };
    const m = oralMeasures([
      T('candidate', 'Bonjour, combien coûte la session ?'),
      T('interlocutor', 'La session de dix semaines coûte 620 dollars, matériel compris.'),
      T('candidate', 'Donc 620 dollars. Et les horaires ?'),
      T('interlocutor', 'Lundi et jeudi soir.'),
    ], sujet);
    expect(m).toMatchObject({ faitsObtenus: 2, faitsTotal: 3, questionsPertinentes: 2, relances: 1 });
  });
});

describe('written measures', () => {
  it('words against the task limits and the instruction words taken up', () => {
    const w = writtenMeasures({ epreuve: 'EE', tache: 'EE_T1', consigne: 'Écrivez à votre voisin pour l’inviter à prendre un café (date, heure, raison).', texte: 'Bonjour, je vous invite à prendre un café samedi à dix heures.' });
    expect(w).toMatchObject({ mots: 12, min: 60, max: 120 });
    expect(w.motsConsigneRepris).toBeGreaterThanOrEqual(2); // invite, café, heure
  });
});
