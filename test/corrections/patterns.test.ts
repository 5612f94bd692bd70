import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CorrectionStore } from '../../actors/corrections/correctionsStore.js';
import { candidatePatterns, groupAutre, autreReview } from '../../actors/corrections/patterns.js';
import { assembleReport, mergeErrors } from '../../actors/corrections/assemble.js';
import { runDetectors } from '../../actors/corrections/detectors/allDetectors.js';
import type { Production } from '../../prompts/corrections/tasks.js';
import type { ReportErrorWithOrigin } from '../../machines/correctionReport.js';
import { storeOf } from '../../core/store/appStore.js';
import { makeContext, T1_CONSIGNE, T1_TEXTE, validWrittenAnswer } from './support.js';

const production: Production = { epreuve: 'EE', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE };
const err = (code: string, critere = 'competence_grammaticale', description: string | null = null): ReportErrorWithOrigin =>
  ({ code, critere: critere as ReportErrorWithOrigin['critere'], description, extrait: 'Je sais pas', correction: '-', origine: 'modele' });

describe('patterns: a code in ≥ 3 of the last 5 productions', () => {
  let env: ReturnType<typeof makeContext> | undefined;
  afterEach(() => {
    env?.close();
    env = undefined;
  });

  /** Saves productions oldest → newest, each with the given codes. */
  async function seed(candidate: string, codesPerProduction: string[][]): Promise<CorrectionStore> {
    env ??= makeContext();
    const store = new CorrectionStore(storeOf(env.ctx));
    for (const [i, codes] of codesPerProduction.entries()) {
      const report = assembleReport({ production, findings: [], fallback: { reason: 'offline_provider' } });
      report.erreurs = codes.map((c) => (c === 'autre' ? err('autre', 'competence_lexicale', 'tournure familière') : err(c)));
      await store.save({ candidateId: candidate, production, report, createdAt: `2026-01-0${i + 1}T10:00:00.000Z` });
    }
    return store;
  }
  const confirmed = async (store: CorrectionStore, candidate: string) => (await candidatePatterns(store, candidate)).confirmed.map((c) => c.code);

  it('3 of the last 5: confirmed; 2 of 5: not', async () => {
    const store = await seed('a', [['negation_incomplete'], [], ['negation_incomplete', 'anglicisme'], ['anglicisme'], ['negation_incomplete']]);
    expect(await confirmed(store, 'a')).toEqual(['negation_incomplete']);
    const p = await candidatePatterns(store, 'a');
    expect(p.productions).toBe(5);
    expect(p.counts.find((c) => c.code === 'anglicisme')!.productions).toBe(2);
  });

  it('an occurrence older than the last 5 does not count', async () => {
    const store = await seed('b', [['accord_sujet_verbe'], ['accord_sujet_verbe'], [], [], [], ['accord_sujet_verbe']]);
    expect(await confirmed(store, 'b')).toEqual([]);
    const store2 = await seed('b2', [[], ['accord_sujet_verbe'], ['accord_sujet_verbe'], [], [], ['accord_sujet_verbe']]);
    expect(await confirmed(store2, 'b2')).toEqual(['accord_sujet_verbe']);
  });

  it('a code repeated inside one production counts once; 3 of 3 productions is a pattern; autre never is', async () => {
    const store = await seed('c', [['genre_incorrect', 'genre_incorrect', 'genre_incorrect', 'autre'], ['autre'], ['autre']]);
    expect(await confirmed(store, 'c')).toEqual([]);
    const store2 = await seed('d', [['genre_incorrect'], ['genre_incorrect'], ['genre_incorrect']]);
    expect(await confirmed(store2, 'd')).toEqual(['genre_incorrect']);
    // Other candidates' productions never count.
    expect(await confirmed(store2, 'c')).toEqual([]);
  });

  it('autre review: recurring (≥ 3) similar descriptions grouped, rare ones left out', async () => {
    const groups = groupAutre([
      { critere: 'competence_lexicale', description: 'Tournure familière dans un courriel formel' },
      { critere: 'competence_lexicale', description: 'tournure familière dans un courriel formel' },
      { critere: 'competence_lexicale', description: 'Tournures familières dans le courriel formel' },
      { critere: 'competence_lexicale', description: 'Verbe pronominal mal construit' },
      { critere: 'competence_grammaticale', description: 'Tournure familière dans un courriel formel' },
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ critere: 'competence_lexicale', count: 3 });
    const store = await seed('e', [['autre'], ['autre'], ['autre']]);
    expect(await autreReview(store)).toMatchObject([{ count: 3, representative: 'tournure familière' }]);
  });
});

describe('merging model errors and detector findings', () => {
  beforeAll(() => {
  }, 180_000);
  it('no duplicates: same code on overlapping spans or a whole-text code counts once; structure_absente = paragraphes_absents', () => {
    const findings = runDetectors(production);
    const merged = mergeErrors(validWrittenAnswer().erreurs, findings);
    expect(merged.filter((e) => e.code === 'negation_incomplete')).toHaveLength(1);
    const bloc = { code: 'paragraphes_absents', critere: 'coherence_cohesion' as const, extrait: 'Je', correction: '', detecteur: 'paragraphes', start: 0 };
    const model = [{ code: 'structure_absente', critere: 'adequation_tache' as const, description: null, extrait: 'Bonjour Marc', correction: '' }];
    expect(mergeErrors(model, [bloc])).toHaveLength(1);
  });

  it('a few lines (under half the minimum): every criterion and the global score scaled into the band under 5, even with a model saying 18', () => {
    const short: Production = { ...production, texte: 'Bonjour Marc,\nJe ne pourrai pas venir demain. Peux-tu prendre des notes ?\nMerci,\nNadia' };
    const a = validWrittenAnswer();
    for (const c of Object.values(a.criteres)) c.score = 18;
    const r = assembleReport({ production: short, findings: runDetectors(short), model: { output: a, name: 'm' } });
    expect(r.erreurs.map((e) => e.code)).toContain('longueur_insuffisante');
    for (const c of Object.values(r.criteres)) expect(c.score).toBeLessThanOrEqual(5);
    // The band, not a clip: the model's 18/20 is scaled into it (5 × 18 / 20), below its top.
    expect(r.scoreGlobal).toBe(4.5);
    expect(['<4', '4']).toContain(r.nclc.niveau);
    expect(r.realisation).toMatchObject({ niveau: 'insuffisante', plafond: 5 });
  });
});

describe('palabre patterns', () => {
  it('prints a candidate\'s confirmed patterns and the autre review from the store', async () => {
    const { run } = await import('../../cli/commands/patternsCommand.js');
    const env = makeContext();
    try {
      const store = new CorrectionStore(storeOf(env.ctx));
      for (let i = 0; i < 3; i++) {
        const report = assembleReport({ production, findings: [], fallback: { reason: 'offline_provider' } });
        report.erreurs = [err('negation_incomplete'), err('autre', 'competence_lexicale', 'Tournure familière dans un courriel')];
        await store.save({ candidateId: 'cli-1', production, report });
      }
      const capture = () => {
        let text = '';
        return { stream: { write: (s: string) => { text += s; return true; } } as unknown as NodeJS.WritableStream, text: () => text };
      };
      const out = capture();
      const err1 = capture();
      const io = { stdout: out.stream, stderr: err1.stream, env: { DATA_DIR: env.dir } };
      expect(await run(['--candidate', 'cli-1'], io)).toBe(0);
      expect(out.text()).toMatch(/PATTERN\s+3\/3\s+negation_incomplete/);
      const out2 = capture();
      expect(await run(['--autre', '--json'], { ...io, stdout: out2.stream })).toBe(0);
      expect(JSON.parse(out2.text())).toMatchObject([{ count: 3, critere: 'competence_lexicale' }]);
      expect(await run([], io)).toBe(2);
      expect(err1.text()).toMatch(/--candidate ID or --autre/);
    } finally {
      env.close();
    }
  });
});
