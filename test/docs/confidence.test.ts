import { describe, expect, it } from 'vitest';
import { CONFIDENCE_MODEL, confidenceFeatures, FEATURES, parseConfidenceModel, probability, questionSignals } from '../../actors/retrieval/confidence.js';
import { analyzeQuery } from '../../actors/retrieval/analyze.js';
import { analysePassage, parseRerankModel, RERANK_MODEL, textFeatures } from '../../actors/retrieval/rerank.js';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';

/** bench/journal/2026-12-docs-assistant.md § Fifth round — the learned probability the guard's high bound applies to, and the learned reranker. */
const words = [
  { word: 'dossier', df: 3, weight: 2, matched: true },
  { word: 'medical', df: 2, weight: 3, matched: true },
  { word: 'lyon', df: 0, weight: 5, matched: false },
];

describe('the confidence model', () => {
  it('ships valid, with the configuration defaults at its cross-validated bounds', () => {
    expect(CONFIDENCE_MODEL.features.length).toBeGreaterThan(0);
    const config = loadPalabreConfig({ env: {}, dotenvPath: null });
    expect(Math.abs(config.CHAT_SCORE_CONFIDENT - CONFIDENCE_MODEL.bounds.high)).toBeLessThan(0.005);
    expect(config.CHAT_SCORE_THRESHOLD).toBe(CONFIDENCE_MODEL.bounds.low);
  });

  it('refuses a model file with an unknown feature or missing weights, naming the problem', () => {
    expect(() => parseConfidenceModel({ ...CONFIDENCE_MODEL, features: ['bestScore'] })).toThrow(/features/);
    expect(() => parseConfidenceModel({ ...CONFIDENCE_MODEL, weights: [1] })).toThrow(/one mean, scale and weight per feature/);
  });

  it('computes every feature from the retrieved passages and the question', () => {
    const f = confidenceFeatures({
      question: 'Combien de temps garder un dossier médical à Lyon ?',
      passages: [{ score: 0.5, lang: 'fr', path: 'a.md' }, { score: 0.2, lang: 'fr', path: 'a.md' }],
      explained: [words, words.map((w) => ({ ...w, matched: w.word === 'dossier' }))],
      cues: { unseenShare: 0.5, unknownNames: ['lyon'], namesNotRetrieved: ['lyon'], liveData: false },
    });
    expect(Object.keys(f).sort()).toEqual([...FEATURES].sort());
    expect(f).toMatchObject({ best: 0.5, margin: 0.3, union: 0.5, unknownName: 1, nameNotRetrieved: 1, langMismatch: 0, files: 0.5, heaviestMissing: 1, missingShare: 0.5 });
  });

  it('gives nothing retrieved a probability of 0, and a probability in (0, 1) otherwise', () => {
    expect(questionSignals('Quoi ?', [], []).signals.inScope).toBe(0);
    const { signals, features } = questionSignals('Combien de temps garder un dossier médical ?', [{ score: 0.9, lang: 'fr', path: 'a.md' }], [words.slice(0, 2)]);
    expect(signals.inScope).toBeGreaterThan(0);
    expect(signals.inScope).toBeLessThan(1);
    expect(signals.inScope).toBeCloseTo(probability(features), 3);
  });
});

describe('the learned reranker', () => {
  it('ships valid and refuses a malformed model file', () => {
    expect(RERANK_MODEL.pool).toBeGreaterThanOrEqual(5);
    expect(() => parseRerankModel({ ...RERANK_MODEL, features: ['title'] })).toThrow(/features/);
    expect(() => parseRerankModel({ ...RERANK_MODEL, scale: [0] })).toThrow();
  });

  it('reads the question\'s words together in one sentence, and how much of the passage is about them', () => {
    const tokens = analyzeQuery('Combien de temps garder un dossier médical ?');
    const weights = tokens.map(() => 1);
    const passage = analysePassage({ section: 'Durées', lang: 'fr', text: 'Le dossier médical est gardé vingt ans. Les autres données suivent leur propre durée.' });
    const f = textFeatures(tokens, weights, passage);
    // « durée » (the question's « combien de temps »), « garder », « dossier », « médical »: three in the first sentence.
    expect(f.bestSentence).toBeCloseTo(3 / tokens.length, 5);
    expect(f.focus).toBeGreaterThan(0);
    expect(f.focus).toBeLessThan(1);
    expect(textFeatures(tokens, weights, analysePassage({ section: 'Autre', lang: 'fr', text: 'Rien à voir ici.' }))).toEqual({ bestSentence: 0, focus: 0 });
  });
});

describe('the answer-type cue (§ Sixth round)', () => {
  it('names the kinds of answer documentation does not hold, in French and English', async () => {
    const { answerTypeOutsideDocs } = await import('../../actors/retrieval/answerType.js');
    for (const q of ['Combien coûte une licence JAWS ?', 'How much does Clever Cloud charge per month to host a site?', "Quel est le tarif de l'API ?"]) expect(answerTypeOutsideDocs(q)).toBe('price');
    for (const q of ["Le RGPD s'applique-t-il à une entreprise suisse ?", 'Which screen reader is most used in Japan?']) expect(answerTypeOutsideDocs(q)).toBe('place');
    for (const q of ['Quel est le taux de conformité cette année ?', 'How many complaints were filed last year?', 'Quelle est la dernière version de KeePass ?', "Le cours de l’action aujourd’hui ?"]) expect(answerTypeOutsideDocs(q)).toBe('live');
  });

  it('leaves the answerable questions whose words are close to those kinds alone', async () => {
    const { answerTypeOutsideDocs } = await import('../../actors/retrieval/answerType.js');
    for (const q of [
      'If making one feature accessible would cost us far too much, can we be let off?',
      'Pour justifier une charge disproportionnée, peut-on invoquer le manque de temps ?',
      "We're a team of four: should one of us be put in charge of GDPR compliance?",
      'We are a private company with a French turnover of 100 million euros: does the obligation apply?',
      'Combien de temps garder les journaux ?',
      'Which protocol version is negotiated at initialisation?',
      'Should we write down who can access the customer records?',
    ]) expect(answerTypeOutsideDocs(q)).toBeNull();
  });

  it('keeps such a question from "high" whatever its words match: probability 0', () => {
    const passages = [{ score: 0.9, lang: 'fr' as const, path: 'a.md' }];
    const asked = questionSignals('Combien de temps garder un dossier médical ?', passages, [words.slice(0, 2)]);
    expect(asked.answerType).toBeNull();
    expect(asked.signals.inScope).toBeGreaterThan(0);
    const priced = questionSignals('Combien coûte un dossier médical ?', passages, [words.slice(0, 2)]);
    expect(priced.answerType).toBe('price');
    expect(priced.signals.inScope).toBe(0);
  });
});

describe('the admin form and the shipped bounds', () => {
  it('every default fits its number input\'s step, so the browser lets the form be sent as shown', async () => {
    const { settingsFields } = await import('../../web/docs/views.js');
    const config = loadPalabreConfig({ env: {}, dotenvPath: null });
    const values = { model: 'm', k: config.CHAT_TOP_K, threshold: config.CHAT_SCORE_THRESHOLD, confident: config.CHAT_SCORE_CONFIDENT, temperature: config.CHAT_TEMPERATURE, maxTokens: config.CHAT_MAX_TOKENS, historyTurns: config.CHAT_HISTORY_TURNS };
    const inputs = [...String(settingsFields(values, {}, 'p', ['m'])).matchAll(/<input type="number" id="p_(\w+)" name="\w+" value="([^"]*)" step="([^"]*)"/g)];
    expect(inputs.map((m) => m[1])).toContain('confident');
    for (const [, key, value, step] of inputs) {
      const steps = Number(value) / Number(step);
      expect(Math.abs(steps - Math.round(steps)), `${key}=${value} with step ${step}`).toBeLessThan(1e-6);
    }
  });
});
