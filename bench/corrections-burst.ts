/**
 * Many candidates finishing at once: N identical productions (the longest written text of the
 * labelled set, ~180 words) sent to the correction engine together, offline provider, real Grammalecte with
 * GRAMMALECTE_WORKERS processes. Prints how many reports were graded with Grammalecte (all must
 * be), how many distinct grades came out (must be 1), and when the first and last report came.
 *
 *   npx tsx bench/corrections-burst.ts [count=100] [workers=1]
 */
import { readFileSync } from 'node:fs';
import { createCorrectionService } from '../actors/corrections/service.js';
import { countWords } from '../actors/corrections/production.js';
import { type Production } from '../prompts/corrections/tasks.js';
import { loadLabelled } from '../test/corrections/labelled.js';
import { makeContext } from '../test/corrections/support.js';

const COUNT = Math.max(1, Number(process.argv[2] ?? 100));
const WORKERS = Math.max(1, Number(process.argv[3] ?? 1));
const text = loadLabelled()
  .map((l) => l.production)
  .filter((p): p is Extract<Production, { epreuve: 'EE' }> => p.epreuve === 'EE')
  .map((p) => p.texte)
  .sort((a, b) => countWords(b) - countWords(a))[0]!;
const env = makeContext({ GRAMMALECTE: 'auto', CORRECTION_PROVIDER: 'offline', GRAMMALECTE_WORKERS: String(WORKERS) });
const service = createCorrectionService(env.ctx);
await service.startChecker();
const status = service.checker.status();
if (status.engine !== 'grammalecte') throw new Error(`Grammalecte is needed: ${status.reason ?? ''} (${status.install ?? ''})`);
// One warm-up, so that the burst measures the queue and not the first check's compilation.
await service.correctWritten({ candidateId: 'warm', tache: 'EE_T3', consigne: 'Donnez votre opinion.', texte: text });

const t0 = performance.now();
const done: number[] = [];
const reports = await Promise.all(Array.from({ length: COUNT }, async (_, i) => {
  const r = (await service.correctWritten({ candidateId: `burst-${i}`, tache: 'EE_T3', consigne: 'Donnez votre opinion.', texte: text })).report as { scoreGlobal: number; moteurs?: string[]; erreurs: unknown[] };
  done.push(performance.now() - t0);
  return r;
}));
const withGrammalecte = reports.filter((r) => r.moteurs?.includes('grammalecte')).length;
const grades = new Set(reports.map((r) => `${r.scoreGlobal}/${r.erreurs.length}`));
done.sort((a, b) => a - b);
const result = {
  count: COUNT, workers: WORKERS, words: countWords(text), withGrammalecte, distinctGrades: grades.size, grade: [...grades][0],
  firstMs: Math.round(done[0]!), medianMs: Math.round(done[Math.floor(done.length / 2)]!), lastMs: Math.round(done.at(-1)!),
  loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
};
console.log(JSON.stringify(result));
console.log(`${COUNT} identical productions at once, ${WORKERS} Grammalecte process(es): ${withGrammalecte}/${COUNT} graded with Grammalecte, ${grades.size} distinct grade(s) (${result.grade}); reports after ${result.firstMs} ms (first), ${result.medianMs} ms (median), ${result.lastMs} ms (last); load ${result.loadavg}`);
await service.close();
env.close();
