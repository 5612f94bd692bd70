import { describe, expect, it } from 'vitest';
import { validateModelAnswer } from '../../actors/corrections/validate.js';
import type { Production } from '../../prompts/corrections/tasks.js';
import { nclcOf } from '../../actors/corrections/report.js';
import { T1_CONSIGNE, T1_TEXTE, validWrittenAnswer } from './support.js';

const written: Production = { epreuve: 'EE', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE };
const oral: Production = {
  epreuve: 'EO', tache: 'EO_T2', consigne: 'Vous appelez une agence.',
  transcript: [
    { speaker: 'interlocutor', text: 'Nous sommes ouverts le samedi.' },
    { speaker: 'candidate', text: "Je sais pas si c'est possible, les enfants joue dehors." },
  ],
};
const oralAnswer = () => ({
  criteres: {
    coherence_cohesion: { score: 12, justification: 'ok' },
    lexique: { score: 11, justification: 'ok' },
    morphosyntaxe: { score: 10, justification: 'ok' },
  },
  erreurs: [{ code: 'accord_sujet_verbe', critere: 'competence_grammaticale', description: null, extrait: 'les enfants joue', correction: 'les enfants jouent' }],
  points_forts: ['Questions claires'],
  conseils: ['a', 'b', 'c'],
});
type Err = ReturnType<typeof validWrittenAnswer>['erreurs'][number];
const withError = (e: Err) => {
  const a = validWrittenAnswer();
  a.erreurs = [e];
  return JSON.stringify(a);
};
const base: Err = { code: 'negation_incomplete', critere: 'competence_grammaticale', description: null, extrait: 'Je sais pas', correction: 'Je ne sais pas' };

describe('validation rules (a failing and a passing case each)', () => {
  it('the answer must be JSON (bare or fenced)', () => {
    expect(validateModelAnswer('Voici le rapport', written)).toMatchObject({ ok: false, errors: [expect.stringMatching(/JSON/)] });
    expect(validateModelAnswer('```json\n' + withError(base) + '\n```', written).ok).toBe(true);
  });

  it('structure: four written criteria, scores 0–20, exactly three conseils', () => {
    const a = validWrittenAnswer() as unknown as { criteres: Record<string, unknown>; conseils: string[] };
    delete a.criteres.competence_lexicale;
    a.conseils = ['un seul'];
    const r = validateModelAnswer(JSON.stringify(a), written);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.join('\n')).toMatch(/criteres\.competence_lexicale/);
      expect(r.errors.join('\n')).toMatch(/conseils/);
    }
    const high = validWrittenAnswer();
    high.criteres.adequation_tache.score = 21;
    expect(validateModelAnswer(JSON.stringify(high), written).ok).toBe(false);
    expect(validateModelAnswer(JSON.stringify(validWrittenAnswer()), written).ok).toBe(true);
  });

  it('code in the closed list', () => {
    const r = validateModelAnswer(withError({ ...base, code: 'faute_de_gout' }), written);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatch(/erreurs\.0\.code/);
    expect(validateModelAnswer(withError(base), written).ok).toBe(true);
  });

  it("the code's criterion must be `critere`", () => {
    const r = validateModelAnswer(withError({ ...base, critere: 'competence_lexicale' }), written);
    expect(r).toMatchObject({ ok: false, errors: [expect.stringContaining('appartient au critère "competence_grammaticale"')] });
    expect(validateModelAnswer(withError({ ...base, critere: 'competence_grammaticale' }), written).ok).toBe(true);
  });

  it('`autre` needs a non-null description; every other code needs null', () => {
    const autre: Err = { code: 'autre', critere: 'competence_lexicale', description: null, extrait: 'je te revaudrai ça', correction: '…' };
    expect(validateModelAnswer(withError(autre), written)).toMatchObject({ ok: false, errors: [expect.stringContaining('"autre" exige une description')] });
    expect(validateModelAnswer(withError({ ...autre, description: '   ' }), written).ok).toBe(false);
    expect(validateModelAnswer(withError({ ...autre, description: 'Familiarité' }), written).ok).toBe(true);
    expect(validateModelAnswer(withError({ ...base, description: 'texte libre' }), written)).toMatchObject({ ok: false, errors: [expect.stringContaining('doit être null')] });
  });

  it('`extrait` must occur in the production (apostrophes and spacing folded, words exact)', () => {
    expect(validateModelAnswer(withError({ ...base, extrait: 'Je ne sais vraiment pas' }), written)).toMatchObject({ ok: false, errors: [expect.stringContaining('ne figure pas mot pour mot')] });
    expect(validateModelAnswer(withError({ ...base, code: 'anglicisme', critere: 'competence_lexicale', extrait: 'checker  les chiffres' }), written).ok).toBe(true);
    expect(validateModelAnswer(withError({ ...base, code: 'autre', critere: 'competence_lexicale', description: 'x', extrait: 'l’emmener chez' }), written).ok).toBe(true);
  });

  it('oral: extrait from the candidate turns only; written-only codes refused; three oral criteria', () => {
    expect(validateModelAnswer(JSON.stringify(oralAnswer()), oral).ok).toBe(true);
    const fromInterlocutor = oralAnswer();
    fromInterlocutor.erreurs[0]!.extrait = 'Nous sommes ouverts';
    expect(validateModelAnswer(JSON.stringify(fromInterlocutor), oral)).toMatchObject({ ok: false, errors: [expect.stringContaining('tours du candidat')] });
    const spelling = oralAnswer();
    spelling.erreurs[0] = { code: 'point_absent', critere: 'competence_grammaticale', description: null, extrait: 'les enfants joue', correction: '.' };
    expect(validateModelAnswer(JSON.stringify(spelling), oral)).toMatchObject({ ok: false, errors: [expect.stringContaining('ne s\'applique pas à une production orale')] });
    expect(validateModelAnswer(JSON.stringify(validWrittenAnswer()), oral).ok).toBe(false);
  });
});

describe('NCLC mapping (IRCC TCF Canada, /20)', () => {
  it('maps the boundaries of every band', () => {
    const cases: Array<[number, string]> = [[20, '10+'], [16, '10+'], [15.9, '9'], [14, '9'], [13, '8'], [12, '8'], [11, '7'], [10, '7'], [9, '6'], [7, '6'], [6, '5'], [5, '4'], [4, '4'], [3.9, '<4'], [0, '<4']];
    for (const [score, level] of cases) expect([score, nclcOf(score).niveau]).toEqual([score, level]);
    expect(nclcOf(10).source).toMatch(/canada\.ca/);
  });
});
