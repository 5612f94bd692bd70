import type { Retriever } from './retriever.js';

/**
 * Retrieval and guard quality on a labelled question set (`rag-qa-dev.json`): a question is found
 * at rank r when the r-th passage comes from one of its relevant documents; an out-of-scope
 * question should be refused (best score under the threshold), an in-scope one should not.
 */
export interface EvalItem {
  id: string;
  question: string;
  relevant: string[];
  out_of_scope?: boolean;
}

export interface QualityMetrics {
  inScope: number;
  outOfScope: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
  refusalPrecision: number;
  refusalRecall: number;
}

export interface QuestionDetail {
  id: string;
  rank: number | null;
  best: number;
  refused: boolean;
  expectRefusal: boolean;
  top: string;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

export function evaluate(r: Retriever, items: EvalItem[], threshold: number, k = 5): { metrics: QualityMetrics; details: QuestionDetail[] } {
  let inScope = 0;
  let at1 = 0;
  let at5 = 0;
  let rr = 0;
  let refusedOut = 0;
  let refusedIn = 0;
  let outOfScope = 0;
  const details: QuestionDetail[] = [];
  for (const item of items) {
    const hits = r.search(item.question, Math.max(k, 10));
    // The guard sees only the k passages the chat retrieves.
    const best = hits.slice(0, k).reduce((m, h) => Math.max(m, h.score), 0);
    const refused = best < threshold;
    const expectRefusal = item.out_of_scope === true || item.relevant.length === 0;
    const idx = hits.findIndex((h) => item.relevant.includes(h.path));
    const rank = idx >= 0 ? idx + 1 : null;
    if (expectRefusal) {
      outOfScope++;
      if (refused) refusedOut++;
    } else {
      inScope++;
      if (refused) refusedIn++;
      if (rank === 1) at1++;
      if (rank !== null && rank <= k) at5++;
      if (rank !== null) rr += 1 / rank;
    }
    details.push({ id: item.id, rank, best: round(best), refused, expectRefusal, top: hits[0] ? `${hits[0].path} (${round(hits[0].score)})` : '' });
  }
  const refusals = refusedOut + refusedIn;
  return {
    metrics: {
      inScope,
      outOfScope,
      recallAt1: round(inScope ? at1 / inScope : 0),
      recallAt5: round(inScope ? at5 / inScope : 0),
      mrr: round(inScope ? rr / inScope : 0),
      refusalPrecision: round(refusals ? refusedOut / refusals : 1),
      refusalRecall: round(outOfScope ? refusedOut / outOfScope : 1),
    },
    details,
  };
}

export function sweep(r: Retriever, items: EvalItem[], thresholds: number[]): Array<{ threshold: number } & Pick<QualityMetrics, 'refusalPrecision' | 'refusalRecall'>> {
  return thresholds.map((t) => {
    const { metrics } = evaluate(r, items, t);
    return { threshold: t, refusalPrecision: metrics.refusalPrecision, refusalRecall: metrics.refusalRecall };
  });
}
