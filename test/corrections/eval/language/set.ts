import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The labelled language-identification set: texts written and labelled before anything ran on
 * them. `lang` is the language the text is written in (ISO 639-3); a text is expected to pass as
 * French exactly when `lang` is `fra` (mostly-French mixes are `fra`, mostly-English ones `eng`).
 */
export const LANGUAGE_PARTS = ['tune', 'heldout'] as const;
export type LanguagePart = (typeof LANGUAGE_PARTS)[number];

const itemSchema = z.object({
  id: z.string(),
  lang: z.enum(['fra', 'eng', 'spa', 'por', 'ita', 'ron']),
  kind: z.string(),
  text: z.string().min(1),
});
export type LanguageItem = z.infer<typeof itemSchema>;

export function loadLanguageSet(part: LanguagePart): LanguageItem[] {
  const url = new URL(`./${part}.json`, import.meta.url);
  return z.array(itemSchema).parse(JSON.parse(readFileSync(url, 'utf8')));
}

export interface Confusion {
  /** Per kind of text: how many were accepted as French and how many refused. */
  rows: Map<string, { lang: string; accepted: number; refused: number; wrong: string[] }>;
  frenchRefused: number;
  french: number;
  otherAccepted: number;
  other: number;
}

export function confusion(items: LanguageItem[], isFrench: (text: string) => boolean): Confusion {
  const rows: Confusion['rows'] = new Map();
  const c: Confusion = { rows, frenchRefused: 0, french: 0, otherAccepted: 0, other: 0 };
  for (const item of items) {
    const ok = isFrench(item.text);
    const key = `${item.kind} (${item.lang})`;
    const row = rows.get(key) ?? { lang: item.lang, accepted: 0, refused: 0, wrong: [] };
    if (ok) row.accepted++;
    else row.refused++;
    const expected = item.lang === 'fra';
    if (ok !== expected) row.wrong.push(item.id);
    rows.set(key, row);
    if (expected) {
      c.french++;
      if (!ok) c.frenchRefused++;
    } else {
      c.other++;
      if (ok) c.otherAccepted++;
    }
  }
  return c;
}
