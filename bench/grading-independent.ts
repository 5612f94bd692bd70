/**
 * The independent check of the offline grading: hand-scored productions written by someone who did
 * not write the grading code (test/corrections/eval/independent/, labelled before any run) are sent
 * through the real HTTP surface, exactly as a client would, and the grades are compared with the labels.
 *
 *   npx tsx bench/grading-independent.ts            # prints the figures (run once; output kept as run-*.txt)
 *
 * It starts the real corrections surface on a loopback socket (temp SQLite, GRAMMALECTE=auto, offline
 * provider), mints a token, then for each oral transcript posts `POST /corrections/eo` twice: without
 * `sujet`, and with the subject's fact sheet; each written production once to `POST /corrections/ee`;
 * each language-ID text to `POST /corrections/ee`. Nothing here asserts: the figures are a measurement.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import express from 'express';
import { correctionsSurface } from '../actors/corrections/surface.js';
import { SEED_SUBJECTS } from '../actors/t2/seedSubjects.js';
import { createAuth } from '../core/auth.js';
import { makeContext } from '../test/corrections/support.js';
import { loadIndependent } from '../test/corrections/eval/independent/sets.js';
import { surfaceMounter } from '../core/server.js';

// `--dir DIR` points the same run at another set in the same format (e.g. a second held-out set).
const { values: args } = parseArgs({ options: { dir: { type: 'string' } } });
const DIR = args.dir !== undefined ? resolve(args.dir) : join(import.meta.dirname, '../test/corrections/eval/independent');

/** Average ranks (ties share the mean rank), then Pearson on the ranks. */
function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}
function spearman(a: number[], b: number[]): number {
  const ra = ranks(a), rb = ranks(b);
  const m = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = m(ra), mb = m(rb);
  let num = 0, da = 0, db = 0;
  for (let i = 0; i < ra.length; i++) { num += (ra[i]! - ma) * (rb[i]! - mb); da += (ra[i]! - ma) ** 2; db += (rb[i]! - mb) ** 2; }
  return num / Math.sqrt(da * db);
}

async function main(): Promise<void> {
  const sets = loadIndependent(DIR);
  const env = makeContext({ GRAMMALECTE: 'auto' });
  const app = express();
  const server = createServer(app);
  const running = await correctionsSurface.start(env.ctx);
  surfaceMounter({ app, server })('corrections', running);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = await createAuth(env.config).mintToken({ sub: 'cand-independent-eval', plan: 'free' });
  const post = async (path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const scoreOf = (json: Record<string, unknown>): number | null => {
    const report = json.report as { scoreGlobal?: number } | undefined;
    return typeof report?.scoreGlobal === 'number' ? report.scoreGlobal : null;
  };
  const realisationOf = (json: Record<string, unknown>): string => {
    const r = (json.report as { realisation?: { niveau?: string; raison?: string } } | undefined)?.realisation;
    return r ? `${r.niveau ?? '?'}: ${r.raison ?? ''}` : '';
  };

  try {
    console.log(`independent grading eval, ${new Date().toISOString()}; health ${JSON.stringify(await running.health!())}`);
    // ---- oral ----
    type Row = { id: string; category: string; label: number; got: number | null; status: number; first: string; why: string };
    const runs: Record<'sans fiche' | 'avec fiche', Row[]> = { 'sans fiche': [], 'avec fiche': [] };
    for (const it of sets.oral) {
      const seed = SEED_SUBJECTS.find((s) => s.id === it.subject);
      const consigne = it.consigne ?? seed?.consigne;
      if (!consigne) throw new Error(`${it.id}: no consigne`);
      const faits = it.faits ?? seed?.factSheet.map((f) => ({ theme: f.theme, keywords: f.keywords, answer: f.answer }));
      const first = it.transcript[0]!.text.slice(0, 90);
      for (const mode of ['sans fiche', 'avec fiche'] as const) {
        const body = { tache: 'EO_T2', consigne, transcript: it.transcript, ...(mode === 'avec fiche' ? { sujet: { faits } } : {}) };
        const { status, json } = await post('/corrections/eo', body);
        runs[mode].push({ id: it.id, category: it.category, label: it.score, got: status === 200 ? scoreOf(json) : null, status, first, why: status === 200 ? realisationOf(json) : JSON.stringify(json).slice(0, 120) });
      }
    }
    for (const [mode, rows] of Object.entries(runs)) {
      const ok = rows.filter((r): r is Row & { got: number } => r.got !== null);
      console.log(`\n=== ORAL EO_T2, ${mode}: ${rows.length} transcripts, ${ok.length} graded${rows.length > ok.length ? `, not graded: ${rows.filter((r) => r.got === null).map((r) => `${r.id} (${r.status})`).join(', ')}` : ''}`);
      const rho = spearman(ok.map((r) => r.label), ok.map((r) => r.got));
      const mae = ok.reduce((s, r) => s + Math.abs(r.got - r.label), 0) / ok.length;
      const maxOf = (cat: string) => Math.max(...ok.filter((r) => r.category === cat).map((r) => r.got));
      console.log(`Spearman ${rho.toFixed(3)} (target >= 0.8); MAE ${mae.toFixed(2)} points`);
      console.log(`max insufficient ${maxOf('insufficient').toFixed(1)} (target <= 8); max off-task monologue ${maxOf('offtask').toFixed(1)} (target <= 10)`);
      console.log('per category (label mean -> grade mean, grade range):');
      for (const cat of ['insufficient', 'A2', 'B1B2', 'C1', 'offtask', 'mixed']) {
        const c = ok.filter((r) => r.category === cat);
        const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
        console.log(`  ${cat.padEnd(12)} ${mean(c.map((r) => r.label)).toFixed(1)} -> ${mean(c.map((r) => r.got)).toFixed(1)}  [${Math.min(...c.map((r) => r.got)).toFixed(1)}–${Math.max(...c.map((r) => r.got)).toFixed(1)}]`);
      }
      console.log('all items (id, label, grade, realisation):');
      for (const r of ok) console.log(`  ${r.id.padEnd(8)} ${String(r.label).padStart(4)} ${r.got.toFixed(1).padStart(5)}  ${r.why.slice(0, 150)}`);
      console.log('8 largest disagreements:');
      for (const r of [...ok].sort((a, b) => Math.abs(b.got - b.label) - Math.abs(a.got - a.label)).slice(0, 8)) {
        console.log(`  ${r.id} (${r.category}) label ${r.label} grade ${r.got.toFixed(1)} (${r.got > r.label ? '+' : ''}${(r.got - r.label).toFixed(1)}) « ${r.first} »`);
      }
    }
    // ---- language identification ----
    console.log(`\n=== LANGUAGE ID via POST /corrections/ee (EE_T1): ${sets.language.length} texts`);
    let tp = 0, fn = 0, fp = 0, tn = 0;
    for (const it of sets.language) {
      const { status, json } = await post('/corrections/ee', { tache: 'EE_T1', consigne: 'Écrivez un message.', texte: it.texte });
      const accepted = status === 200;
      if (it.french && accepted) tp++; else if (it.french) fn++; else if (accepted) fp++; else tn++;
      const ok = accepted === it.french && (accepted || json.error === 'not_french');
      console.log(`  ${ok ? 'ok   ' : 'WRONG'} ${it.id.padEnd(18)} label ${it.french ? 'french' : 'not   '} -> ${status} ${accepted ? '' : `${String(json.error)} detected=${String(json.detected)}`} (${it.kind})`);
    }
    console.log(`confusion: french accepted ${tp}, french refused ${fn}; not-french accepted ${fp}, not-french refused ${tn}`);
    // ---- written ----
    console.log(`\n=== WRITTEN via POST /corrections/ee: ${sets.written.length} productions`);
    for (const it of sets.written) {
      const { status, json } = await post('/corrections/ee', { tache: it.tache, consigne: it.consigne, texte: it.texte });
      const got = status === 200 ? scoreOf(json) : null;
      const adequation = (json.report as { criteres?: Record<string, { score?: number; justification?: string }> } | undefined)?.criteres?.adequation_tache;
      console.log(`  ${it.id.padEnd(15)} ${it.tache} ${it.category.padEnd(9)} label ${String(it.score).padStart(2)} -> ${got === null ? `${status} ${JSON.stringify(json).slice(0, 100)}` : got.toFixed(1)}${adequation ? `  adequation ${String(adequation.score)}: ${String(adequation.justification).slice(0, 120)}` : ''}`);
    }
  } finally {
    await running.stop();
    await new Promise<void>((r) => server.close(() => r()));
    env.close();
  }
}

await main();
