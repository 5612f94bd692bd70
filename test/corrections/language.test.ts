import { describe, expect, it } from 'vitest';
import { detectFrench } from '../../actors/corrections/language.js';
import { loadLabelled } from './labelled.js';
import { ENGLISH_LETTER } from './support.js';
import { candidateText } from '../../actors/corrections/production.js';
import { loadEval } from './eval/evaluate.js';
import { confusion, loadLanguageSet } from './eval/language/set.js';

describe('not French → refused (detectFrench)', () => {
  it('English, Spanish, Portuguese, Chinese and Arabic are not French', () => {
    expect(detectFrench('Hello Mark, I wanted to tell you that the meeting tomorrow is cancelled because the manager is sick. We will reschedule it next week.')).toMatchObject({ french: false, detected: 'eng' });
    expect(detectFrench('Hola Marta, te escribo para invitarte a mi cumpleaños el sábado. Vamos a cenar en un restaurante cerca de mi casa.')).toMatchObject({ french: false, detected: 'spa' });
    expect(detectFrench('Olá Pedro, queria convidar-te para o meu aniversário no sábado. Vamos jantar num restaurante perto da minha casa.').french).toBe(false);
    expect(detectFrench('你好，我想告诉你明天的会议取消了，因为经理生病了。')).toMatchObject({ french: false, detected: 'non-latin' });
    expect(detectFrench('مرحبا، أردت أن أخبرك أن اجتماع الغد قد ألغي لأن المدير مريض.')).toMatchObject({ french: false, detected: 'non-latin' });
  });

  it('every labelled French production passes, learner errors and English words included; too short to tell passes', () => {
    for (const { id, production } of loadLabelled()) expect(detectFrench(candidateText(production)).french, id).toBe(true);
    expect(detectFrench("Hey Sarah, je pense qu'on devrait organiser un lunch avec le manager et commander des snacks.").french).toBe(true);
    expect(detectFrench('Bonjour !')).toMatchObject({ french: true });
    expect(detectFrench('Ok.')).toMatchObject({ french: true, detected: 'und' });
  });

  it('an English letter where French trigrams score close (0.91 of English) is refused', () => {
    expect(detectFrench(ENGLISH_LETTER)).toMatchObject({ french: false, detected: 'eng' });
  });

  it('short texts: decided by function words, none at all is too short to tell', () => {
    expect(detectFrench("Je suis d'accord avec vous.").french).toBe(true);
    expect(detectFrench('How much is the rent?')).toMatchObject({ french: false, detected: 'eng' });
    expect(detectFrench('Grazie mille, a domani.').french).toBe(false);
  });

  it('the tuning part of the labelled set is classified without error; every French eval production passes', () => {
    const c = confusion(loadLanguageSet('tune'), (t) => detectFrench(t).french);
    expect({ frenchRefused: c.frenchRefused, otherAccepted: c.otherAccepted }).toEqual({ frenchRefused: 0, otherAccepted: 0 });
    for (const part of ['tune', 'heldout', 'fresh', 'final'] as const) {
      for (const { id, production } of loadEval(part)) expect(detectFrench(candidateText(production)).french, id).toBe(true);
    }
  });
});
