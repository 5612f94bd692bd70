import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheDir } from '../../actors/corrections/cache.js';
import { GRAMMALECTE_MISSING_WARNING } from '../../actors/corrections/engines.js';
import { INSTALL_HINT, locateGrammalecte } from '../../actors/corrections/grammalecte/locate.js';
import { reportSchema, type Report } from '../../machines/correctionReport.js';
import { createCorrectionService, type CorrectionEngine } from '../../actors/corrections/service.js';
import { makeContext } from './support.js';

/**
 * The grade of a production must not depend on how many others are graded at the same moment:
 * the real Grammalecte (one process, the default) behind the real correction engine, offline
 * provider (the report comes from the offline engines alone, so every difference is theirs).
 */
const found = locateGrammalecte(process.env.GRAMMALECTE_PATH, cacheDir());
if (!('path' in found) && process.env.CI === 'true') throw new Error(`CI=true and ${found.missing}: .ci/run should have run ${INSTALL_HINT}`);

const CONSIGNE = 'Écrivez un message à un ami pour lui raconter votre week-end.';
// Agreement and auxiliary errors only Grammalecte finds; the detectors alone grade it higher.
const TEXTE = `Salut Paul,
Ce week-end, nous sommes allé au marché avec mes cousine. Les enfant joue dans le parc pendant que les parents discutent. Les routes étaient gelé, donc nous sommes rentrés tôt. Je veux que tu viens avec nous la prochaine fois, parce que c'était vraiment une belle journée et que tout le monde t'attend.
À bientôt,
Nadia`;

/** A report without what differs between two runs by design (nothing, today; kept explicit). */
const gradeOf = (r: Report) => ({ scoreGlobal: r.scoreGlobal, criteres: r.criteres, erreurs: r.erreurs, moteurs: r.moteurs, avertissements: r.avertissements });

describe.skipIf(!('path' in found))('grading under load (real Grammalecte)', () => {
  let env: ReturnType<typeof makeContext>;
  let service: CorrectionEngine;
  beforeAll(async () => {
    env = makeContext({ GRAMMALECTE: 'auto', CORRECTION_PROVIDER: 'offline' });
    service = createCorrectionService(env.ctx);
    await service.startChecker();
  }, 60_000);
  afterAll(async () => {
    await service.close();
    env.close();
  });

  const grade = async (texte: string, candidateId = 'load-c') =>
    reportSchema.parse((await service.correctWritten({ candidateId, tache: 'EE_T1', consigne: CONSIGNE, texte })).report);

  it('100 corrections of one text at once get the report it gets alone, graded with Grammalecte', async () => {
    const alone = await grade(TEXTE);
    expect(alone.moteurs).toEqual(['detecteurs', 'grammalecte']);
    expect(alone.avertissements).not.toContain(GRAMMALECTE_MISSING_WARNING);
    expect(alone.erreurs.map((e) => e.extrait)).toEqual(expect.arrayContaining(['enfant', 'cousine']));
    const many = await Promise.all(Array.from({ length: 100 }, (_, i) => grade(TEXTE, `load-${i}`)));
    const differing = many.filter((r) => JSON.stringify(gradeOf(r)) !== JSON.stringify(gradeOf(alone)));
    expect(differing.map((r) => ({ score: r.scoreGlobal, moteurs: r.moteurs }))).toEqual([]);
  }, 120_000);

  it('a lone surrogate and a decomposed accent are normalised before any engine: same report as the clean text', async () => {
    const clean = await grade(TEXTE);
    const odd = await grade(TEXTE.replace('week-end', 'week-end \uD83D').normalize('NFD'));
    expect(odd.moteurs).toEqual(['detecteurs', 'grammalecte']);
    expect(odd.erreurs).toEqual(clean.erreurs);
    expect(odd.scoreGlobal).toBe(clean.scoreGlobal);
  }, 60_000);

  it('when Grammalecte cannot check, the report says which engines graded it and tells the candidate', async () => {
    const other = makeContext({ GRAMMALECTE: 'auto', CORRECTION_PROVIDER: 'offline' });
    const stopped = createCorrectionService(other.ctx);
    await stopped.startChecker();
    await stopped.close();
    try {
      const r = reportSchema.parse((await stopped.correctWritten({ candidateId: 'c', tache: 'EE_T1', consigne: CONSIGNE, texte: TEXTE })).report);
      expect(r.moteurs).toEqual(['detecteurs']);
      expect(r.avertissements).toContain(GRAMMALECTE_MISSING_WARNING);
    } finally {
      other.close();
    }
  }, 60_000);
});

describe('GRAMMALECTE=off: a choice, not a missing engine', () => {
  it('records the detectors alone, with no warning to the candidate', async () => {
    const env = makeContext({ CORRECTION_PROVIDER: 'offline' });
    try {
      const service = createCorrectionService(env.ctx);
      const r = reportSchema.parse((await service.correctWritten({ candidateId: 'c', tache: 'EE_T1', consigne: CONSIGNE, texte: TEXTE })).report);
      expect(r.moteurs).toEqual(['detecteurs']);
      expect(r.avertissements).not.toContain(GRAMMALECTE_MISSING_WARNING);
    } finally {
      env.close();
    }
  });
});
