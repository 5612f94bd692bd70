/**
 * A small, transparent logistic regression for the benches that learn the docs assistant's
 * decisions (bench/rag-confidence.ts): features standardised on the training rows, L2 penalty,
 * batch gradient descent from zeros (deterministic: same rows, same weights).
 */
export interface Fitted {
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

export function fitLogistic(rows: number[][], labels: number[], opts: { l2?: number; iterations?: number; rate?: number } = {}): Fitted {
  const l2 = opts.l2 ?? 0.01;
  const iterations = opts.iterations ?? 3000;
  const rate = opts.rate ?? 0.5;
  const d = rows[0]?.length ?? 0;
  const n = rows.length;
  const mean = Array.from({ length: d }, (_, j) => rows.reduce((s, r) => s + r[j]!, 0) / n);
  const scale = Array.from({ length: d }, (_, j) => Math.sqrt(rows.reduce((s, r) => s + (r[j]! - mean[j]!) ** 2, 0) / n) || 1);
  const xs = rows.map((r) => r.map((v, j) => (v - mean[j]!) / scale[j]!));
  const w = new Array<number>(d).fill(0);
  let b = 0;
  for (let it = 0; it < iterations; it++) {
    const gw = new Array<number>(d).fill(0);
    let gb = 0;
    for (let i = 0; i < n; i++) {
      const x = xs[i]!;
      let z = b;
      for (let j = 0; j < d; j++) z += w[j]! * x[j]!;
      const err = 1 / (1 + Math.exp(-z)) - labels[i]!;
      for (let j = 0; j < d; j++) gw[j]! += err * x[j]!;
      gb += err;
    }
    for (let j = 0; j < d; j++) w[j]! -= rate * (gw[j]! / n + l2 * w[j]!);
    b -= (rate * gb) / n;
  }
  return { mean, scale, weights: w, bias: b };
}

export function predict(m: Fitted, x: number[]): number {
  let z = m.bias;
  for (let j = 0; j < x.length; j++) z += (m.weights[j]! * (x[j]! - m.mean[j]!)) / m.scale[j]!;
  return 1 / (1 + Math.exp(-z));
}

/**
 * Folds stratified by label: rows of each class dealt in turn, in their order (the sets are
 * concatenated, so each fold also holds every set).
 */
export function stratifiedFolds(labels: number[], k: number): number[] {
  const seen = new Map<number, number>();
  return labels.map((y) => {
    const n = seen.get(y) ?? 0;
    seen.set(y, n + 1);
    return n % k;
  });
}

/**
 * Listwise ranking weights (softmax over each question's candidates, the likelihood of its relevant
 * ones maximised): unlike a pointwise fit, what a question has in common across its candidates
 * (its length, how rare its words are) cannot be learned as relevance.
 */
export function fitListwise(lists: Array<{ x: number[][]; y: number[] }>, opts: { l2?: number; iterations?: number; rate?: number } = {}): Fitted {
  const l2 = opts.l2 ?? 0.01;
  const iterations = opts.iterations ?? 1500;
  const rate = opts.rate ?? 0.5;
  const used = lists.filter((l) => l.y.some((v) => v === 1) && l.y.some((v) => v === 0));
  const rows = used.flatMap((l) => l.x);
  const d = rows[0]?.length ?? 0;
  const n = rows.length || 1;
  const mean = Array.from({ length: d }, (_, j) => rows.reduce((s, r) => s + r[j]!, 0) / n);
  const scale = Array.from({ length: d }, (_, j) => Math.sqrt(rows.reduce((s, r) => s + (r[j]! - mean[j]!) ** 2, 0) / n) || 1);
  const zs = used.map((l) => l.x.map((r) => r.map((v, j) => (v - mean[j]!) / scale[j]!)));
  const w = new Array<number>(d).fill(0);
  for (let it = 0; it < iterations; it++) {
    const g = new Array<number>(d).fill(0);
    used.forEach((l, q) => {
      const z = zs[q]!;
      const s = z.map((x) => x.reduce((acc, v, j) => acc + v * w[j]!, 0));
      const top = Math.max(...s);
      const e = s.map((v) => Math.exp(v - top));
      const all = e.reduce((a, b) => a + b, 0);
      const pos = e.reduce((a, v, i) => a + (l.y[i] === 1 ? v : 0), 0);
      z.forEach((x, i) => {
        const coef = e[i]! / all - (l.y[i] === 1 ? e[i]! / pos : 0);
        for (let j = 0; j < d; j++) g[j]! += coef * x[j]!;
      });
    });
    for (let j = 0; j < d; j++) w[j]! -= rate * (g[j]! / (used.length || 1) + l2 * w[j]!);
  }
  return { mean, scale, weights: w, bias: 0 };
}
