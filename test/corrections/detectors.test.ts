import { describe, expect, it } from 'vitest';
import { DETECTORS, runDetectors } from '../../actors/corrections/detectors/allDetectors.js';
import { candidateText } from '../../actors/corrections/production.js';
import { type Production } from '../../prompts/corrections/tasks.js';
import { CODE_CRITERE } from '../../prompts/taxonomy.js';
import { loadLabelled } from './labelled.js';
import { measureQuality } from './detector-quality.js';

const ee = (texte: string, tache: 'EE_T1' | 'EE_T2' | 'EE_T3' = 'EE_T3', consigne = 'Donnez votre opinion.'): Production => ({ epreuve: 'EE', tache, consigne, texte });
const codes = (p: Production) => runDetectors(p).map((f) => f.code);

describe('deterministic detectors', () => {
  it('the labelled set: ≥ 30 productions (B1–C1, three written tasks, oral) and quality floors per detector', () => {
    const set = loadLabelled();
    expect(set.length).toBeGreaterThanOrEqual(30);
    expect(new Set(set.map((s) => s.production.tache))).toEqual(new Set(['EE_T1', 'EE_T2', 'EE_T3', 'EO_T1', 'EO_T2', 'EO_T3']));
    expect(new Set(set.map((s) => s.niveau))).toEqual(new Set(['B1', 'B2', 'C1']));
    const { rows } = measureQuality();
    const total = rows.reduce((a, r) => ({ tp: a.tp + r.tp, fp: a.fp + r.fp, fn: a.fn + r.fn }), { tp: 0, fp: 0, fn: 0 });
    expect(total.tp / (total.tp + total.fp)).toBeGreaterThanOrEqual(0.9);
    expect(total.tp / (total.tp + total.fn)).toBeGreaterThanOrEqual(0.9);
    for (const r of rows) {
      expect(r.tp + r.fn, `${r.code} has labelled examples`).toBeGreaterThan(0);
      expect(r.precision ?? 0, r.code).toBeGreaterThanOrEqual(0.5);
      // Spelling belongs to Grammalecte (test/corrections/grammalecte.test.ts); the built-in list is a fallback.
      if (r.code !== 'faute_orthographe_courante') expect(r.recall ?? 0, r.code).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('every finding quotes the production exactly at its offset, with the taxonomy criterion', () => {
    for (const { production } of loadLabelled()) {
      const text = candidateText(production);
      for (const f of runDetectors(production)) {
        expect(text.slice(f.start, f.start + f.extrait.length)).toBe(f.extrait);
        expect(CODE_CRITERE.get(f.code)).toBe(f.critere);
        expect(DETECTORS.some((d) => d.codes.includes(f.code))).toBe(true);
      }
    }
  });

  it('negation: flags « je sais pas », « c’est pas », « il y a pas »; leaves full negations, « pas mal », « n’ont pas »', () => {
    const neg = (t: string) => runDetectors(ee(t)).filter((f) => f.code === 'negation_incomplete').map((f) => f.extrait);
    expect(neg('Je sais pas. C’est pas grave. Il y a pas de bus.')).toEqual(['Je sais pas', 'C’est pas', 'Il y a pas']);
    expect(neg("Je ne sais pas. Ce n'est pas grave. Il n'y a pas de bus. Il faut pas mal de temps. Ils n'ont pas peur.")).toEqual([]);
  });

  it('negation without « ne »: noun subjects, personne/rien as subject, imperatives; « il ne nous a pas » is complete', () => {
    const neg = (t: string) => runDetectors(ee(t)).filter((f) => f.code === 'negation_incomplete').map((f) => f.extrait);
    expect(neg('Le chauffage marche pas. Mais rien marche. J’ai appelé mais personne est venu. Ramène pas de cadeau. C’est que l’ascenseur marche pas.'))
      .toEqual(['Le chauffage marche pas', 'rien marche', 'personne est', 'Ramène pas', 'l’ascenseur marche pas']);
    expect(neg("Il ne nous a pas semblé utile. Les travaux ne nous ont presque rien coûté. Personne ne m'appelle. Toujours pas de nouvelles. Les enfants mangent plus tard.")).toEqual([]);
  });

  it('capitals on nationality adjectives after a noun, not on nationality nouns; a title needs no full stop', () => {
    const caps = (t: string) => runDetectors(ee(t)).filter((f) => f.code === 'majuscules_incorrectes').map((f) => f.extrait);
    expect(caps('Des familles Indiennes et Mexicaines mangent au restaurant Italien avec les Indiens et des Chinois.')).toEqual(['Indiennes', 'Mexicaines', 'Italien']);
    const titled = 'Un jardin sur le toit de la résidence\nDepuis le printemps, les voisins cultivent des tomates. Tout le monde participe.';
    expect(runDetectors(ee(titled, 'EE_T2')).filter((f) => f.code === 'point_absent')).toEqual([]);
  });

  it('anglicisms: snacks, manager, lunch, hey, food truck', () => {
    const ang = runDetectors(ee('Hey Marc, on prend un lunch avec le manager ? Il y a des snacks et un food truck.')).filter((f) => f.code === 'anglicisme').map((f) => f.extrait);
    expect(ang).toEqual(['Hey', 'lunch', 'manager', 'snacks', 'food truck']);
  });

  it('tutoiement after a title opening (« Bonjour Madame Roy, », « Monsieur le Directeur, »), not after « Salut Paul, »', () => {
    const tu = (t: string) => runDetectors(ee(t, 'EE_T1')).filter((f) => f.code === 'tutoiement_inadequat').length;
    expect(tu('Monsieur le Directeur,\nTu peux me dire quand vous êtes libre ?\nCordialement,\nAna')).toBe(1);
    expect(tu('Bonjour Madame Roy,\nEst-ce que tu as reçu mon courriel ?\nMerci,\nAna')).toBe(1);
    expect(tu('Salut Paul,\nTu viens ce soir ?\nÀ plus,\nAna')).toBe(0);
  });

  it('style detectors tightened on unseen texts: no repetition finding in writing (an argument repeats its topic), « et » counted per length', () => {
    // tu-27 of test/corrections/eval/: « enfants » six times in an argument about advertising for children — not an error an examiner counts.
    const topic = 'Les enfants regardent la télévision. Les enfants aiment les dessins animés. Les publicités visent les enfants. Les parents protègent les enfants. Les écoles parlent aux enfants. Les enfants apprennent vite.';
    expect(codes(ee(topic))).not.toContain('repetition_lexicale');
    const oral: Production = { epreuve: 'EO', tache: 'EO_T3', consigne: 'x', transcript: [{ speaker: 'candidate', text: 'le téléphone le téléphone en classe le téléphone pendant le cours le téléphone toujours le téléphone et encore le téléphone' }] };
    expect(runDetectors(oral).map((f) => f.code)).toContain('repetition_lexicale');
    // Nine « et » in 160 words is ordinary French; eleven in 124 is a loop.
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `mot${i}`).join(' ');
    const withEt = (et: number, words: number) => `${Array.from({ length: et }, () => 'la ville et').join(' ')} ${filler(words - 3 * et)}.`;
    expect(codes(ee(withEt(9, 160)))).not.toContain('connecteurs_repetes');
    expect(codes(ee(withEt(11, 124)))).toContain('connecteurs_repetes');
  });

  it('« il y à » is a homophone error; an imperative\'s « y » before « à » is not (« allez-y à midi »)', () => {
    expect(codes(ee('Il y à beaucoup de monde au marché le samedi.'))).toContain('confusion_homophones');
    expect(codes(ee('Si vous passez dans le quartier, allez-y à midi, avant la foule. Vas-y à pied.'))).not.toContain('confusion_homophones');
  });

  it('written-only detectors do not run on oral transcripts (ASR punctuation and spelling)', () => {
    const oral: Production = { epreuve: 'EO', tache: 'EO_T1', consigne: 'Présentez-vous.', transcript: [{ speaker: 'candidate', text: 'bonjour je m apelle ana je viens du brésil' }, { speaker: 'interlocutor', text: 'bjr' }] };
    expect(codes(oral)).toEqual([]);
  });

  it('length limits per task: 60–120, 120–150, 120–180 words', () => {
    const words = (n: number) => Array.from({ length: n }, () => 'maison').join(' ') + '.';
    expect(codes(ee(words(59), 'EE_T1'))).toContain('longueur_insuffisante');
    expect(codes(ee(words(60), 'EE_T1'))).not.toContain('longueur_insuffisante');
    expect(codes(ee(words(150), 'EE_T2'))).not.toContain('longueur_excessive');
    expect(codes(ee(words(151), 'EE_T2'))).toContain('longueur_excessive');
    expect(codes(ee(words(180), 'EE_T3'))).not.toContain('longueur_excessive');
    expect(codes(ee(words(181), 'EE_T3'))).toContain('longueur_excessive');
  });
});
