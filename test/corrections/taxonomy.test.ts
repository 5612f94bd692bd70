import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL_CODES, CODE_CRITERE, ENTRIES, TAXONOMY_VERSION, WRITTEN_CRITERIA } from '../../prompts/taxonomy.js';

const specCopy = fileURLToPath(new URL('../../prompts/taxonomy.source.fr.md', import.meta.url));
const sharedSpec = fileURLToPath(new URL('../../../shared/specs/error-taxonomy.fr.md', import.meta.url));
const spec = readFileSync(specCopy, 'utf8');

/** Reads the spec's section tables: code, criterion (from the `critere:` line above), description. */
function sectionRows(md: string): Array<{ code: string; critere: string; description: string }> {
  const rows: Array<{ code: string; critere: string; description: string }> = [];
  let critere: string | undefined;
  let inIndex = false;
  for (const line of md.split('\n')) {
    if (line.startsWith('## ')) { inIndex = line.startsWith('## Index'); critere = undefined; }
    const c = /^`critere: "(\w+)"`/.exec(line);
    if (c) critere = c[1];
    const row = /^\| `(\w+)` \| (.+) \|$/.exec(line);
    if (row && critere && !inIndex) rows.push({ code: row[1]!, critere, description: row[2]!.replace(/\*\*/g, '').replace(' — description obligatoire', '') });
  }
  return rows;
}

function indexRows(md: string): Array<[string, string]> {
  const idx = md.slice(md.indexOf('## Index des codes'));
  return [...idx.matchAll(/^\| `(\w+)` \| (\w+) \|$/gm)].map((m) => [m[1]!, m[2]!]);
}

describe('taxonomy data = the spec', () => {
  it('the copied spec is the shared spec, byte for byte (when the shared folder is present)', () => {
    if (existsSync(sharedSpec)) expect(spec).toBe(readFileSync(sharedSpec, 'utf8'));
    expect(spec).toContain('Version 1.0');
    expect(TAXONOMY_VERSION).toBe('1.0');
  });

  it('holds every section row of the spec with its criterion and description, in order', () => {
    const rows = sectionRows(spec);
    expect(rows).toHaveLength(70);
    expect(ENTRIES.map((e) => ({ code: e.code, critere: e.critere, description: e.description }))).toEqual(rows);
  });

  it('66 named codes + one `autre` per criterion; the index agrees with the sections', () => {
    expect(CODE_CRITERE.size).toBe(66);
    for (const c of WRITTEN_CRITERIA) expect(ENTRIES.filter((e) => e.code === 'autre' && e.critere === c)).toHaveLength(1);
    const index = indexRows(spec);
    expect(index).toHaveLength(66);
    expect(new Map(index)).toEqual(new Map(CODE_CRITERE));
    expect(new Set(ALL_CODES).size).toBe(67);
    // The history line's "63 codes" is the known inconsistency: the tables win.
    expect(spec).toContain('63 codes + 4 codes `autre`');
  });
});
