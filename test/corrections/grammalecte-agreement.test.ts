import { describe, expect, it } from 'vitest';
import { cannotBeSubjectOfA, decideAttribute, decideNounPhrase, isEtreVerbParticiple, isPrepositionA, type Word } from '../../actors/corrections/grammalecte/agreement.js';
import { isAccentSlip } from '../../actors/corrections/grammalecte/mapping.js';
import { isLikelyName, isNearForm } from '../../actors/corrections/grammalecte/names.js';
import type { GrammarError } from '../../actors/corrections/grammalecte/sidecar.js';

/**
 * Which agreement code, which « a », which capitalised word: the decisions taken from
 * Grammalecte's morphology, on the tags Grammalecte 2.1.2 really returns for these words
 * (copied from the sidecar's answers), so no Python is needed here.
 */
const w = (word: string, pos: Word['pos'], ...tags: string[]): Word => ({ w: word, pos, m: tags.map((t) => `>${word}/${t}/*`) });
const err = (message: string, rule: string, words: Word[], type = 'gn'): GrammarError => ({ start: 0, end: 1, rule, type, message, suggestions: [], words });

describe('noun phrase errors (gn): determiner, noun number or adjective', () => {
  it('a noun left singular after a plural determiner is nombre_incorrect (« les enfant », « des petits cadeau », « les jeunes employé »)', () => {
    expect(decideNounPhrase(err('Accord de nombre erroné : « enfant » devrait être au pluriel.', 'g3__gn_les_1m__b3_a1_1', [w('Les', 'before', ':G:D:e:p'), w('enfant', 'flagged', ':N:e:s')]), false)).toEqual({ code: 'nombre_incorrect' });
    expect(decideNounPhrase(err('Accord de nombre erroné avec « des petits » : « cadeau » devrait être au pluriel.', 'g3__gn_2m', [w('des', 'before', ':G:D:e:p'), w('petits', 'before', ':N:A:m:p'), w('cadeau', 'flagged', ':N:m:s')]), false)?.code).toBe('nombre_incorrect');
    expect(decideNounPhrase(err('Accord de nombre erroné avec « les jeunes » : « employé » devrait être au pluriel.', 'g3__gn_2m', [w('les', 'before', ':G:D:e:p'), w('jeunes', 'before', ':N:A:e:p'), w('employé', 'flagged', ':N:m:s', ':V1__tnq__a:Q:A:1ŝ:m:s')]), false)?.code).toBe('nombre_incorrect');
    // « leurs » is also a noun (« les leurs »): still a determiner group.
    expect(decideNounPhrase(err('Accord de nombre erroné avec « leurs » : « habitude » devrait être au pluriel.', 'g3__gn_leurs_1m', [w('changer', 'before', ':V1_itnq__a:Y'), w('leurs', 'before', ':N:e:p', ':G:Dp:e:p'), w('habitude', 'flagged', ':N:f:s;É')]), false)?.code).toBe('nombre_incorrect');
  });

  it('an adjective after its noun is accord_adjectif_nom (« des rideaux bleu », « le rapport mensuelle »)', () => {
    expect(decideNounPhrase(err('Accord de nombre erroné avec « des rideaux » : « bleu » devrait être au pluriel.', 'g3__gn_2m', [w('des', 'before', ':G:D:e:p'), w('rideaux', 'before', ':N:m:p'), w('bleu', 'flagged', ':N:A:m:s;C')]), false)?.code).toBe('accord_adjectif_nom');
    expect(decideNounPhrase(err('Accord de genre erroné : le syntagme « le rapport » est masculin, « mensuelle » est féminin.', 'g3__gn_2m', [w('rapport', 'before', ':N:m:s'), w('mensuelle', 'flagged', ':A:f:s')]), false)?.code).toBe('accord_adjectif_nom');
  });

  it('a determiner of the wrong gender is accord_determinant_nom, quoted with its noun (« Ton camionnette », « son professeure »)', () => {
    expect(decideNounPhrase(err('Accord de genre erroné : « camionnette » est féminin.', 'g3__gn_mon_ton_son_1m', [w('Ton', 'flagged', ':G:Dp:m:s'), w('camionnette', 'after', ':N:f:s')]), false)).toEqual({ code: 'accord_determinant_nom', withNext: true });
    // The noun's side of the same error: the determiner is the word to change, quoted with it.
    expect(decideNounPhrase(err('Accord de genre erroné : « son » est un déterminant masculin.', 'g3__gn_mon_ton_son_1m', [w('son', 'before', ':G:Dp:e:s'), w('professeure', 'flagged', ':N:T:f:s')]), false)).toEqual({ code: 'accord_determinant_nom', withPrevious: true });
  });

  it('determiner + adjective + noun: the word that disagrees with the noun is the error (« mon petite sœur » → mon; « la nouvel équipe » → nouvel)', () => {
    const monDet = err('Accord de genre erroné : « petite » est féminin.', 'g3__gn_mon_ton_son_1m', [w('mon', 'flagged', ':G:Dp:e:s'), w('petite', 'after', ':N:A:f:s'), w('sœur', 'after', ':N:f:s')]);
    expect(decideNounPhrase(monDet, true)?.code).toBe('accord_determinant_nom');
    const monAdj = err('Accord de genre erroné : « mon » est un déterminant masculin.', 'g3__gn_mon_ton_son_1m', [w('mon', 'before', ':G:Dp:e:s'), w('petite', 'flagged', ':N:A:f:s'), w('sœur', 'after', ':N:f:s')]);
    expect(decideNounPhrase(monAdj, false)).toBeUndefined();
    const laDet = err('Accord de genre erroné : « nouvel » est masculin.', 'g3__gn_la_1m', [w('la', 'flagged', ':G:D:f:s'), w('nouvel', 'after', ':A:m:s'), w('équipe', 'after', ':N:f:s')]);
    expect(decideNounPhrase(laDet, true)).toBeUndefined();
    const laAdj = err('Accord de genre erroné : « la » est un déterminant féminin.', 'g3__gn_la_1m', [w('la', 'before', ':G:D:f:s'), w('nouvel', 'flagged', ':A:m:s'), w('équipe', 'after', ':N:f:s')]);
    expect(decideNounPhrase(laAdj, false)?.code).toBe('accord_adjectif_nom');
  });
});

describe('attributes and participles (ppas)', () => {
  it('after être, a participle of a verb conjugated with être agrees as a participle, anything else as an adjective', () => {
    const allé = w('allé', 'flagged', ':V1_i__e_e_:Q:m:s');
    const gelé = w('gelé', 'flagged', ':V1_it_q__a:Q:A:1ŝ:m:s');
    expect(isEtreVerbParticiple(allé)).toBe(true);
    expect(isEtreVerbParticiple(gelé)).toBe(false);
    expect(decideAttribute(err('Accord avec le sujet “nous” : “allé” devrait être au pluriel.', 'gv1__ppas_nous_verbe_état__b1_a1_1', [allé], 'ppas')).code).toBe('accord_participe_passe');
    expect(decideAttribute(err('Accord erroné : “main” et “gelé” ne sont pas accordés.', 'gv1__ppas_sujet_être_accord_pluriel__b1_a2_1', [gelé], 'ppas')).code).toBe('accord_adjectif_nom');
    expect(decideAttribute(err('Ce verbe devrait être un participe passé au masculin singulier.', 'gv1__ppas_nous_vous_avoir__b1_a1_1', [w('achetés', 'flagged', ':V1__t_q__a:Q:A:m:p')], 'ppas')).code).toBe('accord_participe_passe');
  });
});

describe('« a » for « à »', () => {
  it('after a verb, an infinitive after a pronoun, or a plural noun: the preposition', () => {
    expect(cannotBeSubjectOfA(w('rester', 'before', ':V1ei__xxe_:Y'), w('dois', 'before', ':V3__tnq__a:Ip:1s:2s'))).toBe(true);
    expect(cannotBeSubjectOfA(w('lever', 'before', ':N:m:s', ':V1_it_q__a:Y'), w('se', 'before', ':G:Oo:Ov:O3:e:i'))).toBe(true);
    expect(cannotBeSubjectOfA(w('notes', 'before', ':N:f:p', ':V1_it____a:Ip:Sp:2s'), w('les', 'before', ':G:D:e:p'))).toBe(true);
    const donner = err('Incohérence probable avec “avoir” : la forme verbale “manger” n’est pas un participe passé.', 'gv1__ppas_avoir__b1_a1_1', [w('donner', 'before', ':V1_itnq__a:Y'), w('a', 'before', ':V0ait____a:Ip:3s'), w('manger', 'flagged', ':V1_it_x__a:Y')], 'ppas');
    expect(isPrepositionA(donner)).toBe(true);
  });

  it('never after a possible subject of avoir: a pronoun, a singular noun after its determiner, a name', () => {
    expect(cannotBeSubjectOfA(w('il', 'before', ':G:Os:O3:m:s'), undefined)).toBe(false);
    expect(cannotBeSubjectOfA(w('dîner', 'before', ':N:m:s', ':V1_i____zz:Y'), w('Le', 'before', ':G:D:m:s', ':G:Oo:Ov:m:s'))).toBe(false);
    expect(cannotBeSubjectOfA(w('Marie', 'before', ':M1:f:i'), undefined)).toBe(false);
    expect(cannotBeSubjectOfA(w('Reza', 'before'), undefined)).toBe(false);
    const ilA = err('Incohérence probable avec “avoir” : la forme verbale “manger” n’est pas un participe passé.', 'gv1__ppas_avoir__b1_a1_1', [w('il', 'before', ':G:Os:O3:m:s'), w('a', 'before', ':V0ait____a:Ip:3s'), w('manger', 'flagged', ':V1_it_x__a:Y')], 'ppas');
    expect(isPrepositionA(ilA)).toBe(false);
  });
});

describe('capitalised unknown word opening a sentence: first name or misspelling', () => {
  it('a name when no suggestion is a near form of it (Reza → Rez, Nez, Mesa…)', () => {
    expect(isLikelyName('Reza', ['Rez', 'Nez', 'Mesa', 'Pesa', 'Lez', 'Repas'])).toBe(true);
    expect(isLikelyName('Oksana', ['Hosanna', 'Scanna', 'Occam'])).toBe(true);
    expect(isLikelyName('Kwame', ['Iwan', 'Crame', 'Clame', 'Calme'])).toBe(true);
  });
  it('a misspelling when a suggestion is an accent, a doubled letter, an apostrophe or (long words) one letter away', () => {
    expect(isLikelyName('Americaines', ['Amerrissaient', 'Américaines'])).toBe(false);
    expect(isLikelyName('Tranquile', ['Tranquille'])).toBe(false);
    expect(isLikelyName('Apelle', ['Appelle'])).toBe(false);
    expect(isLikelyName('Aujourdhui', ['Aujourd’hui'])).toBe(false);
    expect(isLikelyName('Malheureusment', ['Malheureusement'])).toBe(false);
    expect(isNearForm('Reza', 'Rez')).toBe(false); // one letter away, but a short word: not enough
  });
});

describe('accent slips Grammalecte files as confusions', () => {
  it('« notre arrivé », « goutté » are spelling; a/à, ou/où, ces/ses stay homophones', () => {
    expect(isAccentSlip('arrivé', ['arrivée'])).toBe(true);
    expect(isAccentSlip('goutté', ['goûté'])).toBe(true);
    expect(isAccentSlip('a', ['à'])).toBe(false);
    expect(isAccentSlip('ou', ['où'])).toBe(false);
    expect(isAccentSlip('ces', ['ses'])).toBe(false);
    expect(isAccentSlip('leur', ['leurs'])).toBe(false);
    expect(isAccentSlip('quelque', ['quel que'])).toBe(false);
  });
});
