import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { z } from 'zod';
import type { Production } from '../../prompts/corrections/tasks.js';
import { candidateText } from '../../actors/corrections/production.js';
import type { Finding } from '../../actors/corrections/detectors/context.js';

/**
 * The labelled set: realistic productions with their planted errors marked inline as
 * `[[exact span|code]]`; `globals` lists codes about the whole text (length, missing paragraphs,
 * repeated connectors…), matched by code alone.
 */

const DIR = fileURLToPath(new URL('../fixtures/productions/', import.meta.url));

const itemSchema = z.object({
  id: z.string(),
  niveau: z.enum(['B1', 'B2', 'C1']),
  tache: z.enum(['EE_T1', 'EE_T2', 'EE_T3', 'EO_T1', 'EO_T2', 'EO_T3']),
  consigne: z.string(),
  texte: z.string().optional(),
  transcript: z.array(z.object({ speaker: z.enum(['candidate', 'interlocutor']), text: z.string() })).optional(),
  globals: z.array(z.string()),
});

export interface Expected {
  code: string;
  start: number;
  end: number;
  global: boolean;
}

export interface LabelledProduction {
  id: string;
  niveau: string;
  production: Production;
  expected: Expected[];
}

const MARK = /\[\[([^|\]]+)\|([a-z_]+)\]\]/g;

function strip(marked: string): { text: string; marks: Array<{ code: string; start: number; end: number }> } {
  let text = '';
  let last = 0;
  const marks: Array<{ code: string; start: number; end: number }> = [];
  for (const m of marked.matchAll(MARK)) {
    text += marked.slice(last, m.index);
    marks.push({ code: m[2]!, start: text.length, end: text.length + m[1]!.length });
    text += m[1]!;
    last = m.index + m[0].length;
  }
  return { text: text + marked.slice(last), marks };
}

export function loadLabelled(): LabelledProduction[] {
  const out: LabelledProduction[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.json')).sort()) {
    const items = z.array(itemSchema).parse(JSON.parse(readFileSync(join(DIR, file), 'utf8')));
    for (const item of items) {
      let production: Production;
      const expected: Expected[] = [];
      if (item.tache.startsWith('EE')) {
        const { text, marks } = strip(item.texte ?? '');
        production = { epreuve: 'EE', tache: item.tache as 'EE_T1', consigne: item.consigne, texte: text };
        expected.push(...marks.map((m) => ({ ...m, global: false })));
      } else {
        // Offsets are computed in the candidate text, i.e. candidate turns joined by newlines.
        let offset = 0;
        const transcript = (item.transcript ?? []).map((t) => {
          const { text, marks } = strip(t.text);
          if (t.speaker === 'candidate') {
            expected.push(...marks.map((m) => ({ code: m.code, start: m.start + offset, end: m.end + offset, global: false })));
            offset += text.length + 1;
          }
          return { speaker: t.speaker, text };
        });
        production = { epreuve: 'EO', tache: item.tache as 'EO_T1', consigne: item.consigne, transcript };
      }
      expected.push(...item.globals.map((code) => ({ code, start: 0, end: candidateText(production).length, global: true })));
      out.push({ id: item.id, niveau: item.niveau, production, expected });
    }
  }
  return out;
}

export interface Score {
  tp: number;
  fp: number;
  fn: number;
}

/**
 * Matches findings to labels: same code and overlapping spans (or any finding of that code for a
 * whole-text label); each label and each finding counts once.
 */
export function score(findings: Finding[], expected: Expected[], codes: readonly string[]): { byCode: Map<string, Score>; misses: Expected[]; extras: Finding[] } {
  const byCode = new Map<string, Score>();
  const get = (c: string) => byCode.get(c) ?? byCode.set(c, { tp: 0, fp: 0, fn: 0 }).get(c)!;
  const used = new Set<Finding>();
  const misses: Expected[] = [];
  const relevant = expected.filter((e) => codes.includes(e.code));
  // Span labels first, so a whole-text label does not take a finding a span label needs.
  for (const e of [...relevant].sort((a, b) => Number(a.global) - Number(b.global))) {
    const f = findings.find((x) => !used.has(x) && x.code === e.code && (e.global || (x.start < e.end && x.start + x.extrait.length > e.start)));
    if (f) { used.add(f); get(e.code).tp += 1; } else { get(e.code).fn += 1; misses.push(e); }
  }
  const extras = findings.filter((f) => !used.has(f) && codes.includes(f.code));
  for (const f of extras) get(f.code).fp += 1;
  return { byCode, misses, extras };
}
