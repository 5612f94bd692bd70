import { describe, expect, it } from 'vitest';
import { frenchPunctuation, NNBSP, postProcess, stripMarkup } from '../../prompts/skull/postprocess.js';

const N = NNBSP;

describe('frenchPunctuation', () => {
  it('puts a narrow no-break space before ; : ! ? and nowhere twice', () => {
    expect(frenchPunctuation('Salut! Ça va ? Oui ; bien: merci')).toBe(`Salut${N}! Ça va${N}? Oui${N}; bien${N}: merci`);
    expect(frenchPunctuation(`Déjà${N}!`)).toBe(`Déjà${N}!`);
    expect(frenchPunctuation('Quoi ?!')).toBe(`Quoi${N}?!`);
  });

  it('leaves times, ratios and URLs alone', () => {
    expect(frenchPunctuation('Rendez-vous à 12:30, ratio 3:1.')).toBe('Rendez-vous à 12:30, ratio 3:1.');
    expect(frenchPunctuation('Voir https://ex.fr/a?b=1!')).toBe('Voir https://ex.fr/a?b=1!');
  });

  it('turns quotes into « guillemets » with narrow spaces inside', () => {
    expect(frenchPunctuation('Il dit "bonjour" et “salut”.')).toBe(`Il dit «${N}bonjour${N}» et «${N}salut${N}».`);
    expect(frenchPunctuation('« oui »')).toBe(`«${N}oui${N}»`);
  });

  it('writes … for three dots and removes spaces before , and .', () => {
    expect(frenchPunctuation('Bon... alors , voilà .')).toBe('Bon… alors, voilà.');
  });
});

describe('stripMarkup', () => {
  it('drops code blocks nobody asked for, keeps them as text when asked', () => {
    const md = 'Voici :\n```js\nconsole.log(1)\n```\nFin.';
    expect(stripMarkup(md)).not.toContain('console');
    expect(stripMarkup(md, true)).toContain('console.log(1)');
  });

  it('removes Markdown and HTML', () => {
    const out = stripMarkup('# Titre\n- **gras** et *italique*\n<b>html</b> [lien](http://x.y)');
    expect(out).not.toMatch(/[#*<>[\]]/);
    expect(out).toContain('gras');
    expect(out).toContain('lien');
  });
});

describe('postProcess', () => {
  it('trims, flattens, limits to 3 sentences and applies French typography', () => {
    const out = postProcess('  **Salut!**  Je suis Skull.\n\nTu vas bien? Moi oui. Encore une. Et une autre.  ', { maxSentences: 3 });
    expect(out).toBe(`Salut${N}! Je suis Skull. Tu vas bien${N}?`);
  });

  it('returns empty when nothing speakable is left', () => {
    expect(postProcess('```\n```', { maxSentences: 3 })).toBe('');
    expect(postProcess('   ', { maxSentences: 3 })).toBe('');
  });
});
