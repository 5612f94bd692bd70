import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configKeys } from '../../core/config/schema.js';
import { loadPalabreConfig, PALABRE_SECTIONS } from '../../actors/palabreConfig.js';
import { PROJECT_ROOT } from '../../core/version.js';
import { listCorpusFiles } from '../../actors/retrieval/ingest.js';
import { hasAnchor } from '../support/markdownHeadings.js';

/**
 * docs/ is the user documentation and the default corpus of the docs assistant: reference pages
 * that say what holds now. These checks keep it so: its size (a page the assistant and a reader can
 * take in; history belongs in bench/journal/ or git), the pages the default corpus indexes, and
 * every repository path a page cites in backticks.
 */
const DOCS = join(PROJECT_ROOT, 'docs');
/** Limits in bytes: 200,000 (decimal KB, what `wc -c` sums) for every .md under docs/ together, 40 KiB a page. */
const TOTAL_LIMIT = 200_000;
const PAGE_LIMIT = 40 * 1024;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(abs);
    return e.name.endsWith('.md') ? [abs] : [];
  });
}

describe('docs/ pages', () => {
  const pages = markdownFiles(DOCS);

  it(`stay under ${TOTAL_LIMIT.toLocaleString('en')} bytes in all and ${PAGE_LIMIT / 1024} KiB a page`, () => {
    expect(pages.length).toBeGreaterThan(10);
    const sizes = pages.map((p) => ({ page: p.slice(PROJECT_ROOT.length + 1), bytes: statSync(p).size }));
    const over = sizes.filter((s) => s.bytes > PAGE_LIMIT);
    expect(over, 'pages over the limit: move history to bench/journal/, keep what holds now').toEqual([]);
    const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
    expect(total, `docs/**/*.md is ${total} bytes: ${JSON.stringify(sizes)}`).toBeLessThanOrEqual(TOTAL_LIMIT);
  });

  it('are what the default corpus indexes: the pages docs/index.md links, nothing else', () => {
    const config = loadPalabreConfig({ env: {}, dotenvPath: null });
    expect(config.CORPUS_DIR).toBe('docs');
    const indexed = listCorpusFiles(join(PROJECT_ROOT, config.CORPUS_DIR)).map((f) => f.path);
    const index = readFileSync(join(DOCS, 'index.md'), 'utf8');
    const linked = new Set([...index.matchAll(/\]\(([\w-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]!));
    expect(indexed.filter((p) => p !== 'index.md' && !linked.has(p)), 'indexed but not linked from docs/index.md').toEqual([]);
    expect([...linked].filter((p) => !indexed.includes(p)), 'linked from docs/index.md but missing').toEqual([]);
    // The journals of measurement rounds live outside the corpus.
    expect(existsSync(join(PROJECT_ROOT, 'bench', 'journal'))).toBe(true);
    expect(indexed.filter((p) => /(^|\/)\d{4}-\d{2}/.test(p)), 'dated journals belong in bench/journal/').toEqual([]);
  });

  /** Backticked tokens that name a file or folder of this repository. */
  const REPO_PATH = /^(?:actors|bench|bin|cli|core|deploy|docs|machines|prompts|scripts|test|transports|web|\.ci)\/[\w.@/-]*$|^(?:README\.md|package\.json|eslint\.config\.js|vitest\.config\.ts)$/;

  it('cite only repository paths that exist', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      for (const m of text.matchAll(/`([^`\n]+)`/g)) {
        const token = m[1]!.trim().replace(/:\d[\d-]*$/, '');
        if (!REPO_PATH.test(token)) continue;
        checked++;
        if (!existsSync(join(PROJECT_ROOT, token))) missing.push(`${page.slice(PROJECT_ROOT.length + 1)}: ${token}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  /** The project's own variables by their prefixes; the spec's MQTT_HOST/MQTT_PORT are named only to map them onto MQTT_URL. */
  const CONFIG_LIKE = /^(?:AI|ANTHROPIC|BREAKER|CHAT|CORRECTION|DOCS|EMBEDDINGS|GEMINI|GRAMMALECTE|INSPECT|JWT|LLM|MQTT|OPENAI|SKULL|T2|TUNING)_[A-Z0-9_]*[A-Z0-9]$/;
  const NOT_CONFIG = new Set(['MQTT_HOST', 'MQTT_PORT']);

  it('name only configuration variables the schema has, and npm scripts package.json has', () => {
    const keys = new Set(configKeys(PALABRE_SECTIONS));
    const scripts = Object.keys((JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const unknown: string[] = [];
    let variables = 0;
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      const name = page.slice(PROJECT_ROOT.length + 1);
      for (const m of text.matchAll(/`([^`\n]+)`/g)) {
        for (const v of m[1]!.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)) {
          if (!CONFIG_LIKE.test(v[0]) || NOT_CONFIG.has(v[0])) continue;
          variables++;
          if (!keys.has(v[0])) unknown.push(`${name}: ${v[0]}`);
        }
      }
      for (const m of text.matchAll(/npm run ([\w:-]+)/g)) if (!scripts.includes(m[1]!)) unknown.push(`${name}: npm run ${m[1]!}`);
    }
    expect(variables).toBeGreaterThan(50);
    expect(unknown).toEqual([]);
  });

  it('link to pages and headings that exist (the viewer’s anchors or GitHub’s)', () => {
    const broken: string[] = [];
    let anchors = 0;
    for (const page of pages) {
      for (const m of readFileSync(page, 'utf8').matchAll(/\]\(([\w-]+\.md)?(#[^)\s]+)?\)/g)) {
        const target = m[1] ? join(DOCS, m[1]) : page;
        const name = `${page.slice(PROJECT_ROOT.length + 1)}: ${m[1] ?? ''}${m[2] ?? ''}`;
        if (!existsSync(target)) {
          broken.push(name);
          continue;
        }
        const anchor = m[2]?.slice(1);
        if (anchor === undefined) continue;
        anchors++;
        if (!hasAnchor(target, anchor)) broken.push(name);
      }
    }
    expect(anchors).toBeGreaterThan(15);
    expect(broken).toEqual([]);
  });
});
