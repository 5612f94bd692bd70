/**
 * JSON files whose content is prose organised as records (the RGAA criteria file: topics →
 * criteria → title and tests) become Markdown: one heading per record, its prose below. The index
 * and the /docs viewer both read that Markdown, so a passage's anchor is the viewer's heading id
 * and one passage is one record. JSON that is not prose (package.json, settings, data dumps with
 * short values) yields `undefined` and is not indexed.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface JsonRecord {
  /** Labels of the enclosing records, outermost first (e.g. ["1 Images", "1.1"]). */
  path: string[];
  /** Title line of the record (its `title`/`name` field), if any. */
  title: string | undefined;
  /** Prose strings of the record, in document order. */
  lines: string[];
}

/** Fields that name a record rather than describe it: its heading, not its prose. */
const LABEL_KEYS: ReadonlySet<string> = new Set(['number', 'id', 'topic', 'name', 'title', 'label', 'key']);
/** A record needs this much prose, on average, for the file to count as documentation. */
const MIN_WORDS_PER_RECORD = 8;
const MIN_RECORDS = 3;

const isObject = (v: Json): v is { [k: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRecordArray = (v: Json): v is Json[] => Array.isArray(v) && v.length > 0 && v.every(isObject);

/** Does this value hold, at any depth, an array of objects (records nested further down)? */
function holdsRecords(v: Json): boolean {
  if (isRecordArray(v)) return true;
  if (Array.isArray(v)) return v.some(holdsRecords);
  if (isObject(v)) return Object.values(v).some(holdsRecords);
  return false;
}

/** An object wrapping a single object (`{criterium: {...}}`) is that object. */
function unwrap(o: { [k: string]: Json }): { [k: string]: Json } {
  const vals = Object.values(o);
  return vals.length === 1 && isObject(vals[0]!) ? unwrap(vals[0]) : o;
}

function labelOf(o: { [k: string]: Json }, parent: string | undefined): { label: string; title: string | undefined } {
  const num = o.number ?? o.id ?? o.key;
  const named = [o.topic, o.name, o.label].find((v): v is string => typeof v === 'string');
  const title = typeof o.title === 'string' ? o.title : undefined;
  const n = typeof num === 'number' || typeof num === 'string' ? String(num) : '';
  // Criteria are numbered within their topic: "1.1", as people cite them.
  const number = n && parent && /^\d+(\.\d+)*$/.test(parent.split(' ')[0] ?? '') && /^\d+$/.test(n) ? `${parent.split(' ')[0]}.${n}` : n;
  const label = [number, named].filter(Boolean).join(' ') || (title ? '' : 'Entrée');
  return { label, title };
}

/** Strings of a record, depth first, keys in order; label fields are not repeated. */
function proseOf(v: Json, key = ''): string[] {
  if (typeof v === 'string') return [key && !/^\d+$/.test(key) && v.length < 80 && !/\s/.test(v) ? `${key} : ${v}` : v];
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return [];
  if (Array.isArray(v)) return v.flatMap((x) => proseOf(x, key));
  const out: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (LABEL_KEYS.has(k)) continue;
    if (Array.isArray(x) && x.every((s) => typeof s === 'string') && /^\d+$/.test(k)) {
      // Numbered sub-items (RGAA tests "1", "2"…): keep their number visible.
      out.push(...x.map((s) => `Test ${k} : ${s as string}`));
    } else out.push(...proseOf(x, k));
  }
  return out;
}

function collect(v: Json, path: string[], out: JsonRecord[]): void {
  if (isRecordArray(v)) {
    for (const el of v) {
      const o = unwrap(el as { [k: string]: Json });
      const { label, title } = labelOf(o, path[path.length - 1]);
      const nested = Object.entries(o).filter(([, x]) => holdsRecords(x));
      // A record with prose of its own is a record even when a field holds objects (an RGAA
      // criterion's `references: [{wcag: […]}, {techniques: […]}]`): taken for a group, its title
      // and tests were dropped and only its references were indexed.
      const ownProse = title !== undefined || proseOf(Object.fromEntries(Object.entries(o).filter(([, x]) => !holdsRecords(x)))).length > 0;
      if (nested.length > 0 && !ownProse) {
        for (const [, x] of nested) collect(x, [...path, label || title || 'Entrée'], out);
      } else {
        out.push({ path: [...path, label], title, lines: proseOf(o) });
      }
    }
    return;
  }
  if (Array.isArray(v)) v.forEach((x) => collect(x, path, out));
  else if (isObject(v)) for (const x of Object.values(v)) collect(x, path, out);
}

const wordCount = (s: string): number => s.split(/\s+/).filter(Boolean).length;

/** Markdown headings cannot span lines; a record's text is kept on one line per item. */
const oneLine = (s: string): string =>
  s
    // Links to the source site's own glossary anchors lead nowhere here: keep their words.
    .replace(/\[([^\]]*)\]\(#[^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The Markdown for a JSON source, or undefined when it is not prose records. `title` is the
 * document's H1 (the file name).
 */
export function jsonToMarkdown(source: string, title: string): string | undefined {
  let data: Json;
  try {
    data = JSON.parse(source) as Json;
  } catch {
    return undefined;
  }
  const records: JsonRecord[] = [];
  collect(data, [], records);
  if (records.length < MIN_RECORDS) return undefined;
  const words = records.reduce((n, r) => n + wordCount([r.title ?? '', ...r.lines].join(' ')), 0);
  if (words / records.length < MIN_WORDS_PER_RECORD) return undefined;
  const out: string[] = [`# ${title}`, ''];
  let previous: string[] = [];
  for (const r of records) {
    // Group headings (topics) once, when they change; the record itself one level below.
    const groups = r.path.slice(0, -1);
    groups.forEach((g, i) => {
      if (previous[i] !== g) {
        out.push(`${'#'.repeat(Math.min(i + 2, 5))} ${oneLine(g)}`, '');
        previous = [...groups.slice(0, i + 1)];
      }
    });
    previous = groups;
    const depth = Math.min(groups.length + 2, 6);
    const head = [r.path[r.path.length - 1], r.title ? oneLine(r.title) : ''].filter(Boolean).join(' — ');
    out.push(`${'#'.repeat(depth)} ${head}`, '');
    for (const l of r.lines) out.push(`- ${oneLine(l)}`);
    out.push('');
  }
  return out.join('\n');
}
