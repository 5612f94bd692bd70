import { describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../actors/retrieval/analyze.js';
import { answerTypeUnmet, closestSentences, expectedAnswer, holdsAnswer, nameNotClose } from '../../actors/retrieval/expectedAnswer.js';
import { confidenceFeatures, questionSignals } from '../../actors/retrieval/confidence.js';

/** bench/journal/2026-12-docs-assistant.md § Seventh round — the answer a question asks for, against the sentences closest to it. */
describe('the answer type a question asks for', () => {
  it('reads it from the question in French and English, and none from a question asking how or whether', () => {
    expect(expectedAnswer('Combien de temps garder un dossier médical ?')).toBe('duration');
    expect(expectedAnswer('How long should I keep my tax returns?')).toBe('duration');
    expect(expectedAnswer('In which year was the team created?')).toBe('date');
    expect(expectedAnswer('Which versions of Python does the SDK support?')).toBe('version');
    expect(expectedAnswer('Quel est le numéro de téléphone du standard de la CNIL ?')).toBe('contact');
    expect(expectedAnswer('Combien de personnes ont contribué à la spécification MCP ?')).toBe('number');
    expect(expectedAnswer('How many flashes per second are allowed?')).toBe('number');
    expect(expectedAnswer('In the travel example, what is the name of the hotel?')).toBe('name');
    expect(expectedAnswer('Argon2 ou bcrypt : lequel est le plus rapide ?')).toBe('comparison');
    // « Quand » opening a condition is not a date asked for.
    expect(expectedAnswer('Quand un utilisateur supprime son compte, faut-il effacer ses sauvegardes ?')).toBeNull();
    expect(expectedAnswer('Comment chiffrer les mots de passe ?')).toBeNull();
    expect(expectedAnswer('How long-lived should the access tokens be?')).toBeNull();
  });

  it('finds an answer of that type in a sentence, not a look-alike', () => {
    expect(holdsAnswer('duration', 'Le dossier est conservé vingt ans après le dernier passage.')).toBe(true);
    expect(holdsAnswer('duration', 'Le dossier médical est conservé par le médecin.')).toBe(false);
    expect(holdsAnswer('date', 'La version publiée en 2019 reste la référence.')).toBe(true);
    expect(holdsAnswer('version', 'Le protocole 2025-06-18 ajoute les élicitations.')).toBe(true);
    expect(holdsAnswer('version', 'Le protocole ajoute les élicitations.')).toBe(false);
    expect(holdsAnswer('number', 'Trois flashs par seconde au plus.')).toBe(true);
    expect(holdsAnswer('number', 'Les flashs sont interdits.')).toBe(false);
    // « un », « une », « one » are articles far more often than figures.
    expect(holdsAnswer('number', 'Un serveur envoie une notification à un client.')).toBe(false);
    expect(holdsAnswer('name', 'The example books the Hotel Arts for three nights.')).toBe(true);
    expect(holdsAnswer('name', 'The example books a hotel for three nights.')).toBe(false);
    expect(holdsAnswer('comparison', 'Argon2 est plus lent à calculer que SHA-256.')).toBe(true);
    expect(holdsAnswer('comparison', 'Argon2 et bcrypt sont des fonctions de hachage.')).toBe(false);
    // A reference is not a figure.
    expect(holdsAnswer('number', "L'article 83 prévoit des amendes administratives.")).toBe(false);
    expect(holdsAnswer('number', 'Le critère 3.1 porte sur les couleurs.')).toBe(false);
  });
});

describe('the sentences closest to the question', () => {
  const question = 'Combien de personnes ont contribué à la spécification ?';
  const tokens = analyzeQuery(question);
  const weights = tokens.map(() => 1);
  const about = { lang: 'fr' as const, text: 'La spécification est ouverte à tous. Les personnes qui ont contribué sont remerciées. Le site date de 2024.' };

  it('ranks sentences by the question weight they hold, dropping those with none', () => {
    const closest = closestSentences(tokens, weights, [about], 5);
    expect(closest.map((s) => s.text)).toEqual(['Les personnes qui ont contribué sont remerciées.', 'La spécification est ouverte à tous.']);
  });

  it('is unmet when the closest sentences hold no answer of the asked type, met when one does', () => {
    expect(answerTypeUnmet(question, tokens, weights, [about])).toBe(1);
    const counted = { lang: 'fr' as const, text: 'Quarante personnes ont contribué à la spécification.' };
    expect(answerTypeUnmet(question, tokens, weights, [counted])).toBe(0);
    expect(answerTypeUnmet('Comment contribuer à la spécification ?', analyzeQuery('Comment contribuer à la spécification ?'), [1, 1], [about])).toBe(0);
  });

  it('a command, a product or a maximum asked for must be in the closest sentences: the docs name the topic, not that answer', () => {
    expect(expectedAnswer('What is the pip command to install the Python SDK?')).toBe('command');
    expect(expectedAnswer('Quelle commande lance le serveur ?')).toBe('command');
    expect(expectedAnswer('Quel logiciel payant recommande le RGAA pour auditer un site ?')).toBe('product');
    expect(expectedAnswer('Which browser extension does the guide recommend?')).toBe('product');
    expect(expectedAnswer('What is the maximum number of tools a server can expose?')).toBe('number');
    const install = (q: string, text: string): number => answerTypeUnmet(q, analyzeQuery(q), analyzeQuery(q).map(() => 1), [{ lang: 'en', text }]);
    const npm = 'Install the SDK with npm: npm install @example/sdk';
    expect(install('What is the npm command to install the SDK?', npm)).toBe(0);
    // The tool the question names: an npm line does not say how pip installs it.
    expect(install('What is the pip command to install the SDK?', npm)).toBe(1);
    expect(install('Which command installs the SDK?', 'The SDK installs on every platform.')).toBe(1);
    const tool = (text: string): number => answerTypeUnmet('Which tool does the RGAA recommend for audits?', analyzeQuery('Which tool does the RGAA recommend for audits?'), [1, 1, 1, 1], [{ lang: 'en', text }]);
    // The RGAA is what is asked about, not the tool it recommends.
    expect(tool('The RGAA recommends a tool for audits.')).toBe(1);
    expect(tool('For audits the RGAA recommends the Ara tool.')).toBe(0);
  });

  it('reads the asked answer behind « quel est le … », a French « quand » with inversion, a unit and a fine', () => {
    expect(expectedAnswer("Quel est le délai d'expiration par défaut d'une requête ?")).toBe('duration');
    expect(expectedAnswer('Quel est le nombre maximal de critères ?')).toBe('number');
    // A unit named for the answer asks for a figure, before the duration the words suggest.
    expect(expectedAnswer("Quel est le délai d'expiration, en secondes, d'une requête ?")).toBe('number');
    expect(expectedAnswer('What is the size limit in megabytes for a blob?')).toBe('number');
    expect(expectedAnswer("Quel est le montant maximal de l'amende pour un bandeau non conforme ?")).toBe('amount');
    expect(expectedAnswer('What is the maximum fine for a late breach notification?')).toBe('amount');
    // "fine" as an adjective asks for no sum.
    expect(expectedAnswer('Is it fine for our admins to use the root account?')).toBeNull();
    expect(expectedAnswer('Quand la quatrième édition du guide a-t-elle été publiée ?')).toBe('date');
    expect(expectedAnswer('Quand le RGAA 5 entrera-t-il en vigueur ?')).toBe('date');
    // A condition (« quand … a-t-il le droit »), not a date.
    expect(expectedAnswer('Quand un serveur a-t-il le droit de désigner une ressource par une URL ?')).toBeNull();
  });

  it('does not take the question\'s own figures, the digits of a name or a figure without currency for the answer', () => {
    const q = 'À quelle date la version 2024-11-05 du protocole ne sera-t-elle plus prise en charge ?';
    expect(expectedAnswer(q)).toBe('date');
    expect(holdsAnswer('date', 'La version 2024-11-05 du protocole utilise HTTP+SSE.', q)).toBe(false);
    expect(holdsAnswer('date', 'La version 2024-11-05 ne sera plus prise en charge après mars 2026.', q)).toBe(true);
    expect(holdsAnswer('number', 'Either text content or base64-encoded blob data.')).toBe(false);
    expect(holdsAnswer('number', 'Le hachage SHA-256 est recommandé.')).toBe(false);
    expect(holdsAnswer('number', 'Un blob ne dépasse pas 10 Mo.')).toBe(true);
    expect(holdsAnswer('amount', 'Les traceurs sont conservés vingt-cinq mois au plus.')).toBe(false);
    expect(holdsAnswer('amount', "L'amende peut atteindre 20 millions d'euros.")).toBe(true);
    expect(holdsAnswer('amount', 'A fine of up to €10,000,000 may be imposed.')).toBe(true);
  });

  it('flags a specific name the corpus knows that none of the closest sentences holds, not a name the whole corpus repeats', () => {
    const q = 'What is the CNIL IBAN for paying a fine?';
    const tokens = analyzeQuery(q);
    const cnil = tokens.findIndex((t) => t.word === 'cnil');
    const faker = [{ lang: 'en' as const, text: 'Faker generates a fake IBAN for your tests. Paying is never real.' }];
    const rare = tokens.map((_, i) => (i === cnil ? 4 : 1));
    expect(nameNotClose(['cnil'], tokens, rare, tokens.map(() => true), faker)).toBe(1);
    const named = [{ lang: 'en' as const, text: 'The CNIL IBAN for paying a fine is on its site.' }];
    expect(nameNotClose(['cnil'], tokens, rare, tokens.map(() => true), named)).toBe(0);
    // Held by many passages (low weight): the corpus's own topic, not a specific name.
    expect(nameNotClose(['cnil'], tokens, tokens.map(() => 1), tokens.map(() => true), faker)).toBe(0);
    // Unknown to the corpus: another cue's business (unknownName).
    expect(nameNotClose(['cnil'], tokens, rare, tokens.map((_, i) => i !== cnil), faker)).toBe(0);
  });

  it('feeds the confidence features when the passages carry their text, and 0 without it', () => {
    const explained = [tokens.map((t) => ({ word: t.word, df: 2, weight: 1, matched: true }))];
    const cues = { unseenShare: 0, unknownNames: [], namesNotRetrieved: [], liveData: false };
    const withText = confidenceFeatures({ question, passages: [{ score: 0.9, lang: 'fr', path: 'a.md', text: about.text }], explained, cues });
    expect(withText.typeUnmet).toBe(1);
    const without = confidenceFeatures({ question, passages: [{ score: 0.9, lang: 'fr', path: 'a.md' }], explained, cues });
    expect(without.typeUnmet).toBe(0);
  });

  it('keeps a question whose asked answer type is unmet from "high": probability 0', () => {
    const explained = [tokens.map((t) => ({ word: t.word, df: 2, weight: 1, matched: true }))];
    expect(questionSignals(question, [{ score: 0.9, lang: 'fr', path: 'a.md', text: about.text }], explained).signals.inScope).toBe(0);
    const counted = 'Quarante personnes ont contribué à la spécification.';
    expect(questionSignals(question, [{ score: 0.9, lang: 'fr', path: 'a.md', text: counted }], explained).signals.inScope).toBeGreaterThan(0);
  });
});
