import { fold, type QueryToken } from './analyze.js';

/**
 * What a question names, looked for in the corpus as written: a thing the docs never mention is a
 * thing they cannot answer about, however well the question's other words match
 * (docs/docs-assistant.md § Scope). Named things are:
 * - code-like identifiers: a file name, a path, a snake_case or camelCase name, a name with a
 *   leading underscore (`claude_desktop_config.json`, `resources/read`, `nextCursor`, `_ga`);
 * - a name followed by a number or a version (« RGAA 5 », « WCAG 3.0 », « Python 3.12 »);
 * - a version or a date on its own (« 4.2 », « 2026-03-01 »);
 * - an amount (« 20 000 € », « 300 euros »).
 * Capitalised names the corpus never uses are found by the lexical cues (relevance.ts) and join
 * these in the chart's `unknownThings`.
 */
const IDENTIFIER = /(?<![\p{L}\p{N}_])_*[\p{L}\p{N}]+(?:[_./][\p{L}\p{N}]+)+(?![\p{L}\p{N}])|(?<![\p{L}\p{N}_])_+[\p{L}\p{N}]+(?![\p{L}\p{N}])|\b[a-z]+[A-Z][A-Za-z]+\b/gu;
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

/** A hyphenated compound of a question (« Wi-Fi », « sci-fi », « two-factor »), folded. */
const COMPOUND = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu;

/**
 * Which of a question's analysed words are one word of its topic, as a group number per token: the
 * parts of a hyphenated compound are one word (« Wi-Fi » found as « wi » and « fi » on a page
 * quoting it is one word held, not two: the corpus carrying « Wi-Fi » does not carry a question
 * about a Wi-Fi router). The scope rules count groups: how many of the question's words one
 * passage holds together.
 */
export function wordGroups(question: string, tokens: readonly QueryToken[]): number[] {
  const group = tokens.map((_, i) => i);
  const find = (i: number): number => (group[i] === i ? i : (group[i] = find(group[i]!)));
  const join = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) group[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const at = new Map(tokens.map((t, i) => [t.word, i]));
  for (const m of fold(question).matchAll(COMPOUND)) {
    const parts = m[0].split('-').map((w) => at.get(w)).filter((i): i is number => i !== undefined);
    for (const i of parts.slice(1)) join(parts[0]!, i);
  }
  return tokens.map((_, i) => find(i));
}

/**
 * IDF weight from which a capitalised name is specific to a question (held by under ~2 % of the
 * passages): « Android », « JAWS », not the corpus's own « MCP », « RGAA » or « URL ».
 */
export const SPECIFIC_NAME = 4;
