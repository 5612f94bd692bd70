import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../actors/retrieval/analyze.js';
import { fold } from '../../machines/textFold.js';
import { createGeminiEmbedder, createOpenAiEmbedder } from '../../actors/retrieval/embeddings.js';
import { ingestSource } from '../../actors/retrieval/ingest.js';
import type { PassageRecord } from '../../machines/chatContract.js';
import { Retriever } from '../../actors/retrieval/retriever.js';
import { createSlugger, slugify } from '../../machines/docAnchors.js';
import { startEmbeddingsFake, type EmbeddingsFake } from '../fakes/embeddingsFake.js';

const RGPD = `---
title: Conservation
---
# Fiche n°14 : Gérer la durée de conservation

Intro sur les durées.

## Quelques exemples de durée

Les **données figurant dans un dossier médical** doivent être conservées 20 ans.

\`\`\`
# pas un titre
\`\`\`

## Quelques exemples de durée

Second section with the same heading.
`;

const MCP = `# Cancellation

## Cancellation Flow

When a party wants to cancel an in-progress request, it sends a notifications/cancelled notification with the requestId.
`;

let root: string;
let data: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'palabre-corpus-'));
  data = mkdtempSync(join(tmpdir(), 'palabre-data-'));
  mkdirSync(join(root, 'rgpd'));
  mkdirSync(join(root, 'mcp'));
  writeFileSync(join(root, 'rgpd', '14-durée.md'), RGPD);
  writeFileSync(join(root, 'mcp', 'cancellation.mdx'), MCP);
  writeFileSync(join(root, 'notes.txt'), 'Un fichier texte sur la mayonnaise maison.\n\nDeuxième paragraphe.');
  writeFileSync(join(root, 'data.json'), '{"ignored": true}');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

describe('analysis and anchors', () => {
  it('folds diacritics and stems French and English', () => {
    expect(fold('Sécurité Œuvre')).toBe('securite oeuvre');
    const [t] = analyzeQuery('données');
    const [u] = analyzeQuery('donnees');
    expect(t!.variants).toEqual(u!.variants);
    expect(analyzeQuery('Comment faut-il le faire ?')).toEqual([]);
    expect(analyzeQuery('requests')[0]!.variants).toContain('request');
  });

  it('two-word glossary terms pair word by word: « médical » alone never means « record » or « dossier »', () => {
    const [medical] = analyzeQuery('médical');
    expect(medical!.variants).not.toContain('record');
    expect(medical!.variants).not.toContain('dossi');
    const [dossier, med] = analyzeQuery('dossier médical');
    expect(dossier!.variants).toContain('record');
    expect(med!.variants).toContain('medic');
    expect(med!.variants).not.toContain('record');
    const [screen, reader] = analyzeQuery('screen reader');
    expect(screen!.variants).toContain('ecran');
    expect(reader!.variants).toContain('lecteur');
    expect(screen!.variants).not.toContain('lecteur');
  });

  it('« combien de temps » asks for a duration: searched as « durée », not as the word « temps »', () => {
    expect(analyzeQuery('Combien de temps conserver un dossier ?').map((t) => t.word)).toEqual(['duree', 'conserver', 'dossier']);
    expect(analyzeQuery('Le temps de réponse du serveur').map((t) => t.word)).toContain('temps');
  });

  it('a dotted number is one term: « 4.1.2 » and « critère 3.1 » can be searched, and « 4.1.3 » is not a typo of « 4.1.2 »', async () => {
    expect(analyzeQuery('Les erratas de la 4.1.2, critère 3.1 ?').map((t) => t.word)).toEqual(['erratas', '4.1.2', 'critere', '3.1']);
    expect(analyzeQuery('version 4.1.').map((t) => t.word)).toEqual(['version', '4.1']);
    const { LexicalIndex } = await import('../../actors/retrieval/lexicalIndex.js');
    const idx = new LexicalIndex();
    const passage = (path: string, text: string): PassageRecord => ({ id: `${path}:1`, path, section: 'Notes', anchor: 'notes', lineStart: 1, lineEnd: 1, text, lang: 'fr' });
    idx.add([passage('412.md', 'Corrections de la version 4.1.2 du référentiel.'), passage('41.md', 'Corrections de la version 4.1 du référentiel.')]);
    expect(idx.search('corrections 4.1.2', 2).hits.map((h) => h.id)).toEqual(['412.md:1', '41.md:1']);
    expect(idx.search('4.1.3', 2).hits).toEqual([]);
  });

  it('slugs headings like the viewer and keeps them unique per document', () => {
    expect(slugify('Fiche n°14 : Gérer la durée')).toBe('fiche-n-14-gerer-la-duree');
    expect(slugify('H2 `code` **bold**')).toBe('h2-code-bold');
    const s = createSlugger();
    expect([s('A'), s('A'), s('A')]).toEqual(['a', 'a-1', 'a-2']);
  });
});

describe('ingest', () => {
  it('keeps path, heading path, anchor and line range; front matter and fenced # are not headings', () => {
    const doc = ingestSource('rgpd/14-durée.md', RGPD, { mtimeMs: 1, size: RGPD.length })!;
    expect(doc.title).toBe('Conservation');
    expect(doc.headings.map((h) => h.anchor)).toEqual(['fiche-n-14-gerer-la-duree-de-conservation', 'quelques-exemples-de-duree', 'quelques-exemples-de-duree-1']);
    const p = doc.passages.find((x) => x.text.includes('20 ans'))!;
    expect(p.section).toBe('Fiche n°14 : Gérer la durée de conservation › Quelques exemples de durée');
    expect(p.anchor).toBe('quelques-exemples-de-duree');
    expect(RGPD.split('\n')[p.lineStart - 1]).toContain('dossier médical');
    expect(RGPD.split('\n')[p.lineEnd - 1]).toBe('```');
    expect(p.text).toContain('# pas un titre');
    expect(doc.lang).toBe('fr');
  });
});

describe('Retriever', () => {
  it('indexes md, mdx and txt (not json), scores in [0, 1], persists and reloads', async () => {
    const r = new Retriever({ root, dataDir: data });
    const first = await r.sync();
    expect(first.added).toBe(3);
    expect(r.documents().map((d) => d.path)).toEqual(['mcp/cancellation.mdx', 'notes.txt', 'rgpd/14-durée.md']);
    const hits = r.search('Combien de temps conserver un dossier médical ?', 3);
    expect(hits[0]!.path).toBe('rgpd/14-durée.md');
    expect(hits[0]!.score).toBeGreaterThan(0.5);
    expect(hits[0]!.score).toBeLessThanOrEqual(1);
    const out = r.search('How do I factory reset an iPhone?', 3);
    expect(Math.max(0, ...out.map((h) => h.score))).toBeLessThan(0.3);

    const again = new Retriever({ root, dataDir: data });
    expect(again.load()).toBe(true);
    const report = await again.sync();
    expect(report).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 3 });
    expect(again.search('dossier médical', 1)[0]!.id).toBe(hits[0]!.id);
  });

  it('updates the index when a file changes, is touched, appears or disappears', async () => {
    const r = new Retriever({ root, dataDir: data });
    r.load();
    await r.sync();
    const touched = join(root, 'notes.txt');
    utimesSync(touched, new Date(), new Date(Date.now() + 5000));
    expect((await r.sync()).unchanged).toBe(3);
    writeFileSync(join(root, 'mcp', 'cancellation.mdx'), `${MCP}\n## Timeouts\n\nA kumquat timeout applies.\n`);
    writeFileSync(join(root, 'extra.md'), '# Extra\n\nLes pamplemousses sont jaunes.\n');
    const report = await r.sync();
    expect(report).toMatchObject({ added: 1, updated: 1 });
    expect(r.search('kumquat', 1)[0]!.path).toBe('mcp/cancellation.mdx');
    expect(r.search('pamplemousses', 1)[0]!.path).toBe('extra.md');
    rmSync(join(root, 'extra.md'));
    expect((await r.sync()).removed).toBe(1);
    expect(r.search('pamplemousses', 1)).toEqual([]);
  });
});

describe('hybrid retrieval (embeddings through the OpenAI SDK, fused by RRF)', () => {
  let fake: EmbeddingsFake;
  beforeAll(async () => {
    fake = await startEmbeddingsFake({ synonyms: { stoppee: 'cancelled', interrompue: 'cancelled' } });
  });
  afterAll(() => fake.close());

  it('finds by meaning what BM25 misses, keeping the lexical score meaning', async () => {
    const embedder = createOpenAiEmbedder({ apiKey: 'test', baseURL: fake.url, model: 'text-embedding-3-small' });
    const r = new Retriever({ root, embedder });
    await r.sync();
    expect(fake.requests[0]!.model).toBe('text-embedding-3-small');
    const lexical = r.search('interrompue stoppee', 3);
    expect(lexical).toEqual([]);
    const hybrid = await r.retrieve('interrompue stoppee', 3);
    expect(hybrid[0]!.path).toBe('mcp/cancellation.mdx');
    expect(hybrid[0]!.score).toBe(0);
    const both = await r.retrieve('dossier médical', 2);
    expect(both.length).toBe(2);
    expect(both[0]!.path).toBe('rgpd/14-durée.md');
    expect(both[0]!.score).toBeGreaterThan(0.5);
  });

  it('keeps working lexically when the embeddings server is down', async () => {
    const down = await startEmbeddingsFake();
    await down.close();
    const embedder = createOpenAiEmbedder({ apiKey: 'test', baseURL: down.url, model: 'm', maxRetries: 0 });
    const r = new Retriever({ root, embedder });
    const report = await r.sync();
    expect(report.embeddingError).toBeDefined();
    expect(report.passages).toBeGreaterThan(0);
    const hits = await r.retrieve('dossier médical', 1);
    expect(hits[0]!.path).toBe('rgpd/14-durée.md');
  });

  it('works the same with Gemini embeddings through @google/genai', async () => {
    const embedder = createGeminiEmbedder({ apiKey: 'test-gemini-key', baseUrl: fake.origin, model: 'gemini-embedding-001' });
    const r = new Retriever({ root, embedder });
    const report = await r.sync();
    expect(report.embeddingError).toBeUndefined();
    expect(fake.requests.at(-1)!.model).toBe('gemini-embedding-001');
    const hybrid = await r.retrieve('interrompue stoppee', 3);
    expect(hybrid[0]!.path).toBe('mcp/cancellation.mdx');
  });

  it('stores vectors with the index: a restart embeds nothing again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'palabre-vec-'));
    const embedder = createOpenAiEmbedder({ apiKey: 'test', baseURL: fake.url, model: 'text-embedding-3-small' });
    const first = new Retriever({ root, dataDir: dir, embedder });
    expect((await first.sync()).embedded).toBeGreaterThan(0);
    const before = fake.requests.length;
    const second = new Retriever({ root, dataDir: dir, embedder });
    expect(second.load()).toBe(true);
    const report = await second.sync();
    expect(report.embedded).toBeUndefined();
    expect(fake.requests.length).toBe(before);
    await second.retrieve('interrompue', 1);
    expect(fake.requests.length).toBe(before + 1);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('JSON files of prose records', () => {
  const CRITERIA = JSON.stringify({
    wcag: { version: 2.1 },
    topics: [
      { topic: 'Images', number: 1, criteria: [{ criterium: { number: 1, title: 'Chaque [image porteuse d’information](#image) a-t-elle une alternative textuelle ?', tests: { 1: ['Chaque image (balise img) a-t-elle un attribut alt ?'], 2: ['Chaque zone d’une image réactive a-t-elle une alternative ?'] } } }] },
      { topic: 'Formulaires', number: 11, criteria: [{ criterium: { number: 1, title: 'Chaque champ de formulaire a-t-il une étiquette ?', tests: { 1: ['Chaque champ de formulaire a-t-il une étiquette label associée ?'] }, references: [{ wcag: ['1.3.1 Info and Relationships (A)'] }, { techniques: ['H44'] }] } }, { criterium: { number: 2, title: 'Chaque étiquette associée à un champ de formulaire est-elle pertinente ?', tests: { 1: ['Chaque balise label est-elle pertinente pour son champ ?'] } } }] },
    ],
  });

  it('indexes one passage per record, under its topic and number; glossary links keep their words', () => {
    const doc = ingestSource('rgaa/criteres.json', CRITERIA, { mtimeMs: 1, size: CRITERIA.length })!;
    expect(doc.passages).toHaveLength(3);
    const first = doc.passages[0]!;
    expect(first.section).toBe('criteres.json › 1 Images › 1.1 — Chaque image porteuse d’information a-t-elle une alternative textuelle ?');
    expect(first.text).toContain('Test 1 : Chaque image (balise img) a-t-elle un attribut alt ?');
    expect(first.text).toContain('Test 2 : ');
    // A criterion with references (an array of objects) is still one record, title and tests kept.
    expect(doc.passages[1]!.section).toContain('11.1 — Chaque champ de formulaire a-t-il une étiquette ?');
    expect(doc.passages[1]!.text).toContain('Test 1 : Chaque champ de formulaire a-t-il une étiquette label associée ?');
    expect(doc.passages[1]!.text).toContain('1.3.1 Info and Relationships (A)');
    expect(doc.headings.map((h) => h.anchor)).toContain(first.anchor);
  });

  it('skips JSON that is not prose (settings, package manifests)', () => {
    const pkg = JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { a: '^1' }, scripts: { test: 'vitest' } });
    expect(ingestSource('package.json', pkg, { mtimeMs: 1, size: pkg.length })).toBeUndefined();
    expect(ingestSource('broken.json', '{"a": ', { mtimeMs: 1, size: 6 })).toBeUndefined();
  });

  it('front matter: never a passage of its own keys, but its description is prose of the page', () => {
    const src = '---\ntitle: Référentiel\ndescription: L’accessibilité numérique rend les services utilisables par tous.\nlayout: accueil.njk\neleventyNavigation:\n  order: 0\n---\n';
    const doc = ingestSource('rgaa/index.md', src, { mtimeMs: 1, size: src.length })!;
    expect(doc.title).toBe('Référentiel');
    expect(doc.passages.map((p) => p.text)).toEqual(['L’accessibilité numérique rend les services utilisables par tous.']);
  });
});

describe('relevance cues', () => {
  it('unseen share and unknown names come from the words the corpus never uses', async () => {
    const { relevanceSignals } = await import('../../actors/retrieval/relevance.js');
    const words = [
      { word: 'weather', df: 0, weight: 5 },
      { word: 'forecast', df: 0, weight: 5 },
      { word: 'lyon', df: 0, weight: 5 },
      { word: 'server', df: 40, weight: 1 },
    ];
    expect(relevanceSignals('What is the weather forecast for Lyon on the server?', words)).toEqual({ unseenShare: 0.938, unknownNames: ['lyon'], namesNotRetrieved: ['lyon'], liveData: false });
    expect(relevanceSignals('Lyon weather', words).unknownNames).toEqual([]); // first word: any question starts with a capital
    for (const q of ["What's the weather forecast for Paris tomorrow?", 'Quel temps fera-t-il demain ?', "Le cours de l’action aujourd’hui ?", 'Book a flight for next Tuesday']) {
      expect(relevanceSignals(q, words).liveData).toBe(true);
    }
    for (const q of ['Combien de temps garder les journaux ?', 'Which progress token types are allowed?', 'Que contient la prochaine étape ?']) {
      expect(relevanceSignals(q, words).liveData).toBe(false);
    }
  });

  it('a name the corpus knows but no retrieved passage holds is "not retrieved"', async () => {
    const { relevanceSignals } = await import('../../actors/retrieval/relevance.js');
    const words = [
      { word: 'cnil', df: 12, weight: 3 },
      { word: 'iban', df: 2, weight: 5 },
      { word: 'fine', df: 4, weight: 4 },
    ];
    const faker = [{ word: 'cnil', matched: false }, { word: 'iban', matched: true }, { word: 'fine', matched: false }];
    const guide = [{ word: 'cnil', matched: true }, { word: 'iban', matched: false }, { word: 'fine', matched: false }];
    const q = "What is the CNIL's IBAN for paying a fine?";
    expect(relevanceSignals(q, words, [faker])).toMatchObject({ unknownNames: [], namesNotRetrieved: ['cnil'] });
    expect(relevanceSignals(q, words, [faker, guide]).namesNotRetrieved).toEqual([]);
    // Not a query word (a stop word, or a one-letter token): never counted.
    expect(relevanceSignals('Where should I keep The keys?', [{ word: 'keys', df: 3, weight: 2 }], []).namesNotRetrieved).toEqual([]);
  });
});

describe('ranking: several files in the results', () => {
  it('no more than ranking.perFile passages of one file before the other files had their turn (judgedPerFile for the confidence)', async () => {
    const { LexicalIndex, ranking } = await import('../../actors/retrieval/lexicalIndex.js');
    const passage = (path: string, line: number, text: string): PassageRecord => ({ id: `${path}:${line}`, path, section: 'S', anchor: 's', lineStart: line, lineEnd: line, text, lang: 'en' });
    const idx = new LexicalIndex();
    idx.add([
      passage('long.md', 1, 'Tokens expire: rotate the token every day.'),
      passage('long.md', 5, 'A token is rotated by the server.'),
      passage('long.md', 9, 'Rotate each token after use.'),
      passage('short.md', 1, 'The token page.'),
      passage('other.md', 1, 'Nothing about that here.'),
    ]);
    expect(ranking.perFile).toBe(1);
    expect(ranking.judgedPerFile).toBe(3);
    // One ranking, two caps: the sources (one per file) and the passages the confidence reads.
    const { hits, judged } = idx.search('rotate token', 3);
    expect(hits.map((h) => h.id.split(':')[0])).toEqual(['long.md', 'short.md', 'long.md']);
    expect(judged!.map((h) => h.id.split(':')[0])).toEqual(['long.md', 'long.md', 'long.md']);
    expect(judged![0]).toEqual(hits[0]);
    ranking.judgedPerFile = 2;
    try {
      expect(idx.search('rotate token', 3).judged!.map((h) => h.id.split(':')[0])).toEqual(['long.md', 'long.md', 'short.md']);
    } finally {
      ranking.judgedPerFile = 3;
    }
    ranking.perFile = 0;
    try {
      expect(idx.search('rotate token', 3).hits.map((h) => h.id.split(':')[0])).toEqual(['long.md', 'long.md', 'long.md']);
    } finally {
      ranking.perFile = 1;
    }
  });
});
