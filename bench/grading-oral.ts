/**
 * How the offline grades follow an examiner's, on the labelled sets of test/corrections/eval/oral/
 * (README.md there): T2 transcripts from insufficient to C1 and off-task monologues, and written
 * productions for the length and instruction ceiling. Prints, per part, Spearman's rank correlation
 * between the global score and the label, the mean absolute error, the highest score of an
 * insufficient production and of an off-task one, and the largest disagreements.
 *
 *   npx tsx bench/grading-oral.ts tuning             # the tuning parts (looked at while fitting)
 *   npx tsx bench/grading-oral.ts heldout            # the held-out parts, run once, at the end
 *   npx tsx bench/grading-oral.ts fresh              # the second held-out part (terse answers, split turns), run once
 *   npx tsx bench/grading-oral.ts final              # the third, for the shipped rules, run once
 *   npx tsx bench/grading-oral.ts tuning --no-sheet  # without the subject's fact sheet (the HTTP API's case)
 *   npx tsx bench/grading-oral.ts --json FILE        # another labelled set: [{id, label, niveau?, tache?, consigne, transcript, sujet?}]
 *   --no-punct drops ? ! and . from the turns (a speech recogniser's transcript); --split makes each
 *   candidate sentence a turn; --terse cuts the interlocutor's answers to six words
 *   --verbose lists every production; GRAMMALECTE=off grades with the built-in detectors alone
 */
import { readFileSync } from 'node:fs';
import { assembleReport } from '../actors/corrections/assemble.js';
import { cacheDir } from '../actors/corrections/cache.js';
import { Checker } from '../actors/corrections/checker.js';
import type { OralTask, TranscriptTurn } from '../prompts/corrections/tasks.js';
import { locateGrammalecte } from '../actors/corrections/grammalecte/locate.js';
import { GrammalecteSidecar } from '../actors/corrections/grammalecte/sidecar.js';
import type { OralSubject, Production } from '../prompts/corrections/tasks.js';
import { spearman } from '../test/corrections/eval/evaluate.js';
import { loadOral, loadWritten } from '../test/corrections/eval/oral/loadSets.js';

interface Row { id: string; niveau: string; label: number; production: Production }

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const noSheet = args.includes('--no-sheet');
/** Without question marks or full stops, as a speech recogniser may write. */
const noPunct = args.includes('--no-punct');
const strip = (t: string) => (noPunct ? t.replace(/\s*[?.!]+/g, '') : t);
/** Each candidate sentence its own turn, as a speech recogniser splits at pauses. */
const split = args.includes('--split');
/** Interlocutor answers cut to their first six words (an examiner's terse answers). */
const terse = args.includes('--terse');
const reshape = (turns: TranscriptTurn[]): TranscriptTurn[] => turns.flatMap((t) => {
  if (t.speaker === 'candidate' && split) return t.text.split(/(?<=[.?!])\s+/).map((text) => ({ ...t, text }));
  if (t.speaker === 'interlocutor' && terse) return [{ ...t, text: t.text.split(/\s+/).slice(0, 6).join(' ') }];
  return [t];
});
const jsonAt = args.indexOf('--json');
const part = args.find((a) => a === 'tuning' || a === 'heldout' || a === 'fresh' || a === 'final');
if (!part && jsonAt < 0) throw new Error('usage: grading-oral.ts tuning|heldout|fresh|final [--no-sheet] [--no-punct] [--verbose] | --json FILE');

const oralRow = (r: { id: string; niveau?: string; label: number; tache?: OralTask; consigne: string; transcript: TranscriptTurn[]; sujet?: OralSubject }): Row => ({
  id: r.id, niveau: r.niveau ?? '?', label: r.label,
  production: { epreuve: 'EO', tache: r.tache ?? 'EO_T2', consigne: r.consigne, transcript: reshape(r.transcript).map((t) => ({ ...t, text: strip(t.text) })), ...(r.sujet && !noSheet ? { sujet: r.sujet } : {}) },
});

const sets: Array<{ name: string; rows: Row[] }> = [];
if (jsonAt >= 0) {
  const file = args[jsonAt + 1];
  if (!file) throw new Error('--json needs a file');
  sets.push({ name: file, rows: (JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof oralRow>[0][]).map(oralRow) });
} else {
  const p = part === 'tuning' ? 'tune' : part === 'heldout' ? 'heldout' : part === 'fresh' ? 'fresh' : 'final';
  sets.push({ name: `oral ${part}${noSheet ? ', without fact sheets' : ''}${noPunct ? ', without punctuation' : ''}${split ? ', split turns' : ''}${terse ? ', terse answers' : ''}`, rows: loadOral(p).map(oralRow) });
  if (p === 'tune' || p === 'heldout') sets.push({
    name: `written ${part}`,
    rows: loadWritten().filter((w) => w.part === p).map((w) => ({ id: w.id, niveau: w.kind, label: w.label, production: { epreuve: 'EE', tache: w.tache, consigne: w.consigne, texte: w.texte } })),
  });
}

const cfg = process.env.GRAMMALECTE === 'off' ? { missing: 'GRAMMALECTE=off' } : locateGrammalecte(process.env.GRAMMALECTE_PATH, cacheDir());
let sidecar: GrammalecteSidecar | undefined;
if ('path' in cfg) {
  sidecar = new GrammalecteSidecar({ python: process.env.GRAMMALECTE_PYTHON ?? 'python3', pythonPath: cfg.path, timeoutMs: 10_000 });
  await sidecar.start();
}
const checker = new Checker(sidecar, 'missing' in cfg ? cfg.missing : undefined);
console.log(`engine: ${checker.status().engine}${sidecar ? ` ${sidecar.version}` : ''}`);

for (const set of sets) {
  const out: Array<Row & { score: number; niveauTache: string }> = [];
  for (const row of set.rows) {
    const { findings } = await checker.check(row.production);
    const r = assembleReport({ production: row.production, findings, fallback: { reason: 'offline_provider' } });
    out.push({ ...row, score: r.scoreGlobal, niveauTache: r.realisation?.niveau ?? '?' });
  }
  const rho = spearman(out.map((r) => r.score), out.map((r) => r.label));
  const mae = out.reduce((s, r) => s + Math.abs(r.score - r.label), 0) / out.length;
  const max = (pred: (r: Row) => boolean) => Math.max(...out.filter(pred).map((r) => r.score), -Infinity);
  console.log(`\n## ${set.name}: ${out.length} productions`);
  console.log(`Spearman(score, label) ${rho.toFixed(3)} (target ≥ 0.8); mean absolute error ${mae.toFixed(2)} points /20`);
  const ins = max((r) => /insuffisant|court/.test(r.niveau));
  const off = max((r) => /hors/.test(r.niveau));
  if (Number.isFinite(ins)) console.log(`highest insufficient production: ${ins} (target ≤ 8)`);
  if (Number.isFinite(off)) console.log(`highest off-task production: ${off} (target ≤ 10)`);
  console.log('largest disagreements (id, level, label → score, task completion):');
  for (const r of [...out].sort((a, b) => Math.abs(b.score - b.label) - Math.abs(a.score - a.label)).slice(0, 6)) {
    console.log(`  ${r.id} ${r.niveau} ${r.label} → ${r.score} (${r.score > r.label ? '+' : ''}${(r.score - r.label).toFixed(1)}, ${r.niveauTache})`);
  }
  if (verbose) for (const r of out) console.log(`  ${r.id} ${r.niveau.padEnd(12)} label ${String(r.label).padStart(2)} score ${r.score} ${r.niveauTache}`);
}
await sidecar?.stop();
