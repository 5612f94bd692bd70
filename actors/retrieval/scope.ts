import { fold } from '../../machines/textFold.js';

/**
 * What a question names, looked for in the corpus as written: a thing the docs never mention is a
 * thing they cannot answer about, however well the question's other words match
 * (docs/docs-assistant.md § Scope). Named things are:
 * - code-like identifiers: a file name, a path, a snake_case or camelCase name
 *   (`claude_desktop_config.json`, `resources/read`, `nextCursor`);
 * - a name followed by a number or a version (« RGAA 5 », « WCAG 3.0 », « Python 3.12 »);
 * - a version or a date on its own (« 4.2 », « 2026-03-01 »);
 * - an amount (« 20 000 € », « 300 euros »).
 * Capitalised names the corpus never uses are found by the lexical cues (relevance.ts) and join
 * these in the chart's `unknownThings`.
 */
const IDENTIFIER = /(?<![\p{L}\p{N}])[\p{L}\p{N}]+(?:[_./][\p{L}\p{N}]+)+(?![\p{L}\p{N}])|\b[a-z]+[A-Z][A-Za-z]+\b/gu;
const NAME_NUMBER = /(?<![\p{L}\p{N}])(\p{Lu}[\p{L}-]*)\s+(v?\d+(?:[.-]\d+)*)(?![\p{L}\p{N}])/gu;
const VERSION_OR_DATE = /(?<![\p{L}\p{N}.])(?:\d{4}-\d{2}-\d{2}|\d+\.\d+(?:\.\d+)*)(?![\p{L}\p{N}]|\.\d)/gu;
const AMOUNT = /(?<![\p{L}\p{N}])\d[\d\s ]*(?:[.,]\d+)?\s*(?:€|euros?\b|\$|dollars?\b|k€)/gu;
/** A dotted number inside an identifier match is a version, not a file name: only letters make one. */
const HAS_LETTER = /\p{L}/u;

/** The named things of a question, as written (duplicates dropped). */
export function namedThings(question: string): string[] {
  const out = new Set<string>();
  for (const m of question.matchAll(IDENTIFIER)) if (HAS_LETTER.test(m[0])) out.add(m[0]);
  for (const m of question.matchAll(NAME_NUMBER)) out.add(`${m[1]} ${m[2]}`);
  for (const m of question.matchAll(VERSION_OR_DATE)) out.add(m[0]);
  for (const m of question.matchAll(AMOUNT)) out.add(m[0].trim());
  return [...out];
}

/** How a phrase is compared with the docs' text: folded, quotes and emphasis marks gone, spaces collapsed. */
export function foldPhrase(text: string): string {
  return fold(text)
    .replace(/[`*«»"“”’']/g, ' ')
    .replace(/[\s\u00a0\u202f]+/g, ' ')
    .trim();
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A folded phrase as a whole word sequence (« rgaa 5 » is not in « rgaa 50 »). */
export function phrasePattern(folded: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escape(folded)}(?![\\p{L}\\p{N}])`, 'u');
}
