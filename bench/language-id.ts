/**
 * Language identification on the labelled set (test/corrections/eval/language/): the confusion
 * table of `detectFrench` (actors/corrections/language.ts) per kind of text.
 *
 *   npx tsx bench/language-id.ts tune        # the tuning part (looked at while choosing the rule)
 *   npx tsx bench/language-id.ts heldout     # the held-out part, run once, at the end
 *   npx tsx bench/language-id.ts all         # both, one table each
 */
import { detectFrench } from '../actors/corrections/language.js';
import { confusion, LANGUAGE_PARTS, loadLanguageSet, type LanguagePart } from '../test/corrections/eval/language/set.js';

const arg = process.argv[2] ?? 'all';
const parts: LanguagePart[] = arg === 'all' ? [...LANGUAGE_PARTS] : LANGUAGE_PARTS.filter((p) => p === arg);
if (parts.length === 0) throw new Error(`usage: language-id.ts ${LANGUAGE_PARTS.join('|')}|all`);

for (const part of parts) {
  const items = loadLanguageSet(part);
  const c = confusion(items, (text) => detectFrench(text).french);
  console.log(`\n${part}: ${items.length} texts`);
  console.log('| kind (language) | accepted as French | refused | wrong |');
  console.log('| --- | --- | --- | --- |');
  for (const [kind, r] of c.rows) console.log(`| ${kind} | ${r.accepted} | ${r.refused} | ${r.wrong.join(' ') || '—'} |`);
  console.log(`French refused: ${c.frenchRefused}/${c.french}; not French accepted: ${c.otherAccepted}/${c.other}; accuracy ${((items.length - c.frenchRefused - c.otherAccepted) / items.length).toFixed(3)}`);
}
