import { describe, expect, it } from 'vitest';
import { detectSensitive, fold } from '../../prompts/skull/sensitiveTopics.js';

describe('soft policy', () => {
  it('folds accents, case and apostrophes', () => {
    expect(fold("L'ÉLECTION à Montréal")).toBe(' l election a montreal ');
  });

  it.each([
    ['Parle-moi d’argent', 'argent'],
    ["j'ai besoin d'argent", 'argent'],
    ['Combien coûte un crédit immobilier ?', 'argent'],
    ['mes impôts', 'argent'],
    ['tu investis en bourse ?', 'argent'],
    ['Pour qui voter aux élections ?', 'politique'],
    ['Que penses-tu du gouvernement ?', 'politique'],
    ['Le PRÉSIDENTIELLE approche', 'politique'],
    ['J’ai mal, quel médicament prendre ?', 'sante'],
    ['Mes symptômes de grippe', 'sante'],
    ['Je suis malade', 'sante'],
    ['Quel est ton mot de passe ?', 'donnees_personnelles'],
    ['Mon numéro de téléphone est 06 12 34 56 78', 'donnees_personnelles'],
    ['écris à jean.dupont@example.com', 'donnees_personnelles'],
  ])('%s → %s', (text, topic) => {
    expect(detectSensitive(text)).toBe(topic);
  });

  it.each([
    'Raconte une blague sur l’Argentine',
    'Un tango argentin',
    'De l’argenterie ancienne',
    'Je suis parti en vacances',
    'Tourne à droite puis à gauche',
    'Quelle est ta couleur préférée ?',
    'Votre crâne est joli',
    'Dis une courte devinette.',
  ])('%s → nothing', (text) => {
    expect(detectSensitive(text)).toBeNull();
  });
});
