import { describe, expect, it } from 'vitest';
import { isComplete, limitSentences, splitSentences } from '../../prompts/skull/sentences.js';

describe('splitSentences', () => {
  it('splits on . ! ? … followed by a capital', () => {
    expect(splitSentences('Salut ! Ça va ? Très bien. Et toi… Super.')).toEqual(['Salut !', 'Ça va ?', 'Très bien.', 'Et toi…', 'Super.']);
  });

  it('survives titles and initials', () => {
    expect(splitSentences('M. Dupont est là. Mme Durand aussi. J. K. Rowling écrit.')).toEqual([
      'M. Dupont est là.',
      'Mme Durand aussi.',
      'J. K. Rowling écrit.',
    ]);
    expect(splitSentences('Le Dr. Watson arrive. Bien.')).toEqual(['Le Dr. Watson arrive.', 'Bien.']);
  });

  it('survives etc. and … followed by lower case, and ends a sentence at etc. + capital', () => {
    expect(splitSentences('Des pommes, des poires, etc. sont au menu. Voilà.')).toEqual(['Des pommes, des poires, etc. sont au menu.', 'Voilà.']);
    expect(splitSentences('Des fruits, etc. Ensuite on danse.')).toEqual(['Des fruits, etc.', 'Ensuite on danse.']);
    expect(splitSentences('Eh bien… je ne sais pas. Non.')).toEqual(['Eh bien… je ne sais pas.', 'Non.']);
  });

  it('survives decimals written either way', () => {
    expect(splitSentences('Il mesure 3,5 mètres. Ou 3.5 en anglais. Fin.')).toEqual(['Il mesure 3,5 mètres.', 'Ou 3.5 en anglais.', 'Fin.']);
  });

  it('survives URLs and e-mails', () => {
    expect(splitSentences('Va sur https://example.com/a.b?c=1. Puis écris à skull@exemple.fr. Merci.')).toEqual([
      'Va sur https://example.com/a.b?c=1.',
      'Puis écris à skull@exemple.fr.',
      'Merci.',
    ]);
    expect(splitSentences('Voir www.palabre.dev. Ensuite rien.')).toEqual(['Voir www.palabre.dev.', 'Ensuite rien.']);
  });

  it('keeps closing guillemets with their sentence', () => {
    expect(splitSentences('Il a dit « Bonjour ! » Puis il est parti.')).toEqual(['Il a dit « Bonjour ! »', 'Puis il est parti.']);
  });
});

describe('limitSentences', () => {
  it('cuts a 10-sentence reply to 3, ending cleanly', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `Phrase numéro ${i + 1}.`).join(' ');
    const out = limitSentences(ten, 3);
    expect(out).toBe('Phrase numéro 1. Phrase numéro 2. Phrase numéro 3.');
    expect(isComplete(out)).toBe(true);
  });

  it('drops a fragment cut by the token limit, or closes a lone one with …', () => {
    expect(limitSentences('Première phrase. Deuxième phrase. Et puis la troi', 3)).toBe('Première phrase. Deuxième phrase.');
    expect(limitSentences('Une phrase sans fin,', 3)).toBe('Une phrase sans fin…');
  });
});
