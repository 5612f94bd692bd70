/**
 * Precision and recall of every deterministic detector on the labelled set.
 *   npx tsx test/corrections/detector-quality.ts [--verbose]
 * Prints a table and one JSON line.
 */
import { DETECTORS, runDetectors } from '../../actors/corrections/detectors/allDetectors.js';
import { candidateText } from '../../actors/corrections/production.js';
import { loadLabelled, score, type Score } from './labelled.js';

export interface QualityRow { detector: string; code: string; tp: number; fp: number; fn: number; precision: number | null; recall: number | null }

export function measureQuality(verbose = false): { rows: QualityRow[]; productions: number; log: string[] } {
  const set = loadLabelled();
  const codes = DETECTORS.flatMap((d) => d.codes);
  const totals = new Map<string, Score>();
  const log: string[] = [];
  for (const item of set) {
    const findings = runDetectors(item.production);
    const { byCode, misses, extras } = score(findings, item.expected, codes);
    for (const [code, s] of byCode) {
      const t = totals.get(code) ?? { tp: 0, fp: 0, fn: 0 };
      totals.set(code, { tp: t.tp + s.tp, fp: t.fp + s.fp, fn: t.fn + s.fn });
    }
    if (verbose) {
      const text = candidateText(item.production);
      for (const m of misses) log.push(`${item.id}  MISS ${m.code}  «${m.global ? '(texte entier)' : text.slice(m.start, m.end)}»`);
      for (const f of extras) log.push(`${item.id}  FALSE ${f.code}  «${f.extrait}»`);
    }
  }
  const rows: QualityRow[] = [];
  for (const d of DETECTORS) {
    for (const code of d.codes) {
      const s = totals.get(code) ?? { tp: 0, fp: 0, fn: 0 };
      rows.push({
        detector: d.name, code, ...s,
        precision: s.tp + s.fp === 0 ? null : s.tp / (s.tp + s.fp),
        recall: s.tp + s.fn === 0 ? null : s.tp / (s.tp + s.fn),
      });
    }
  }
  return { rows, productions: set.length, log };
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const { rows, productions, log } = measureQuality(process.argv.includes('--verbose'));
  const pct = (v: number | null) => (v === null ? '  n/a' : `${(v * 100).toFixed(0).padStart(4)}%`);
  for (const line of log) console.log(line);
  console.log(`labelled productions: ${productions}`);
  console.log('detector            code                         TP  FP  FN  precision  recall');
  for (const r of rows) {
    console.log(`${r.detector.padEnd(20)}${r.code.padEnd(29)}${String(r.tp).padStart(3)} ${String(r.fp).padStart(3)} ${String(r.fn).padStart(3)}  ${pct(r.precision).padStart(9)}  ${pct(r.recall).padStart(6)}`);
  }
  const sum = rows.reduce((a, r) => ({ tp: a.tp + r.tp, fp: a.fp + r.fp, fn: a.fn + r.fn }), { tp: 0, fp: 0, fn: 0 });
  console.log(JSON.stringify({ bench: 'detector-quality', productions, ...sum, precision: sum.tp / (sum.tp + sum.fp), recall: sum.tp / (sum.tp + sum.fn), rows }));
}
