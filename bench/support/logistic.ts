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
