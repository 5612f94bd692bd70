/**
 * False alarms on native prose nobody wrote for palabre: the French pages of a documentation set
 * (default ../shared/corpus, the docs assistant's corpus: RGPD and RGAA guides) are checked as if
 * they were productions, and every finding of the rules named on the command line is printed
 * (native, edited text: each one is a false alarm or a slip of the docs' authors — read them).
 *
 *   npx tsx bench/corrections-native.ts                                   # palabre's attribute and mood rules
 *   npx tsx bench/corrections-native.ts grammalecte:attribut grammalecte:gn [CORPUS_DIR=…]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../actors/corrections/cache.js';
import { Checker } from '../actors/corrections/checker.js';
import { countWords } from '../actors/corrections/production.js';
import { locateGrammalecte } from '../actors/corrections/grammalecte/locate.js';
import { GrammalecteSidecar } from '../actors/corrections/grammalecte/sidecar.js';

const root = process.env.CORPUS_DIR ?? join(import.meta.dirname, '../../shared/corpus');
const rules = process.argv.slice(2).length ? process.argv.slice(2) : ['grammalecte:attribut', 'grammalecte:subjonctif'];
const cfg = locateGrammalecte(process.env.GRAMMALECTE_PATH, cacheDir());
if (!('path' in cfg)) throw new Error(`Grammalecte is needed: ${cfg.missing}`);
const sidecar = new GrammalecteSidecar({ python: process.env.GRAMMALECTE_PYTHON ?? 'python3', pythonPath: cfg.path, timeoutMs: 20_000 });
await sidecar.start();
const checker = new Checker(sidecar, undefined);

const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).sort();
let words = 0;
let found = 0;
for (const f of files) {
  // Prose only: code blocks, tags, link targets and Markdown marks out.
  const prose = readFileSync(join(root, f), 'utf8').replace(/^---[\s\S]*?\n---\n/, '').replace(/```[\s\S]*?```/g, '').replace(/<[^>]+>/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[#*_`|>]/g, ' ');
  if (!/\b(?:le|la|les|est|sont)\b/.test(prose)) continue; // not French
  for (let i = 0; i < prose.length; i += 3000) {
    const texte = prose.slice(i, i + 3000);
    words += countWords(texte);
    const { findings } = await checker.check({ epreuve: 'EE', tache: 'EE_T3', consigne: '', texte });
    for (const x of findings.filter((g) => rules.includes(g.detecteur))) {
      found++;
      console.log(`${f} ${x.detecteur} ${x.code} «${x.extrait}» …${texte.slice(Math.max(0, x.start - 70), x.start + x.extrait.length + 20).replace(/\s+/g, ' ')}`);
    }
  }
}
await sidecar.stop();
console.log(`\n${files.length} files, ${words} words of native prose; findings of ${rules.join(', ')}: ${found} (${((1000 * found) / Math.max(words, 1)).toFixed(2)} per 1,000 words)`);
