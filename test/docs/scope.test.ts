import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runAsk } from '../../cli/commands/askCommand.js';
import { createDocsAssistant } from '../../actors/docs/assistant.js';
import { analyzeQuery } from '../../actors/retrieval/analyze.js';
import { namedThings, wordGroups } from '../../actors/retrieval/scope.js';
import { OUT_OF_SCOPE_ANSWERS } from '../../prompts/docs/chatPrompt.js';
import { captureIo } from '../support/cliIo.js';
import { recordingProvider, registryOf, testConfig } from './fixtures.js';

/**
 * docs/docs-assistant.md § Scope: a question whose words the corpus holds only scattered, never two
 * in one passage, is refused without a model call; a named thing no passage mentions keeps an
 * answer from "high". The corpus holds « 2022 », « world » and « monde » — never together, never
 * with a cup.
 */
let root: string;
let data: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'palabre-scope-'));
  data = mkdtempSync(join(tmpdir(), 'palabre-scope-data-'));
  mkdirSync(join(root, 'rgaa'));
  writeFileSync(join(root, 'rgaa', 'declaration.md'), '# Déclaration\n\nCette déclaration a été établie le 9 août 2022 par l’équipe du site.\n');
  writeFileSync(join(root, 'protocol.md'), '# Protocol\n\nThe protocol connects tools and data sources all over the world.\n\nLe monde entier peut implémenter le protocole sans licence.\n');
  writeFileSync(join(root, 'rgaa', 'revision.md'), '# Notes de révision\n\nLes nouveautés du RGAA 4.1 portent sur les critères de contraste et les cadres.\n');
  writeFileSync(join(root, 'weather.md'), '# Example server\n\nThe example weather server exposes the weather forecast of a city such as Paris as a resource.\n');
  writeFileSync(join(root, 'config.md'), '# Configuration\n\nThe HTTP port is set by the PORT variable: `PORT=3001 npm start`.\n');
  writeFileSync(join(root, 'transport.md'), '# Transport\n\nThe client may close the connection at any time; the server then stops sending.\n');
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

// A low bound nearly nothing fails: only the scope rules refuse here.
const env = (): Record<string, string> => ({ CORPUS_DIR: root, CHAT_SCORE_THRESHOLD: '0.05' });

async function assistant(extra: Record<string, string> = {}) {
  const provider = recordingProvider(() => ({ text: 'Réponse du modèle [1].' }));
  const a = createDocsAssistant({ config: testConfig({ ...env(), CHAT_CLAIM_CHECK: 'off', ...extra }), providers: registryOf(provider), persist: false });
  await a.ready();
  return { a, provider };
}

describe('unrelated questions', () => {
  it('words found only apart (« 2022 » in a date, « world » on another page) are refused in English and in French, without a model call', async () => {
    const { a, provider } = await assistant();
    const en = await a.ask({ question: 'Who won the 2022 World Cup?', settings: a.defaults() });
    expect(en).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.en, confidence: 'high', sources: [] });
    const fr = await a.ask({ question: 'Qui a gagné la Coupe du monde en 2022 ?', settings: a.defaults() });
    expect(fr).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.fr, sources: [] });
    expect(provider.requests).toHaveLength(0);
    // Two words of the question in one passage: answered.
    const port = await a.ask({ question: 'Which variable sets the HTTP port?', settings: a.defaults() });
    expect(port.state).toBe('answered');
    expect(provider.requests).toHaveLength(1);
  });

  it('a question about the world now is refused, however well its words match the docs\' example weather server', async () => {
    const { a, provider } = await assistant();
    const en = await a.ask({ question: 'What is the weather forecast in Paris tomorrow?', settings: a.defaults() });
    expect(en).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.en });
    const fr = await a.ask({ question: 'Quelle est la météo à Paris demain ?', settings: a.defaults() });
    expect(fr).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.fr });
    expect(provider.requests).toHaveLength(0);
    const docs = await a.ask({ question: 'Which resource does the example weather server expose?', settings: a.defaults() });
    expect(docs.state).toBe('answered');
  });

  it('a name the corpus never uses, with two ordinary words that meet in a passage, is refused; three words held together are answered', async () => {
    const { a, provider } = await assistant();
    // « time » and « close » meet on the transport page: chance, the question is about the Louvre.
    const en = await a.ask({ question: 'What time does the Louvre close?', settings: a.defaults() });
    expect(en).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.en, sources: [] });
    const fr = await a.ask({ question: 'À quelle heure ferme le musée du Louvre ?', settings: a.defaults() });
    expect(fr).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.fr });
    expect(provider.requests).toHaveLength(0);
    // Quantifiers carry no topic: « much » is no more evidence than « combien ».
    expect(await a.ask({ question: 'How much does a Spotify subscription cost?', settings: a.defaults() })).toMatchObject({ state: 'outOfScope' });
    // An unknown name, but the question's own words held together by the page that answers it.
    const named = await a.ask({ question: 'Can the Acme client close the connection at any time?', settings: a.defaults() });
    expect(named).toMatchObject({ state: 'answered', confidence: 'low' });
    expect(named.sources.map((s) => s.path)).toContain('transport.md');
    // A longer question: the unknown product is its context, not its subject.
    const long = await a.ask({ question: 'Our Acme team reviews licence, contrast and port settings: when may the client close?', settings: a.defaults() });
    expect(long).toMatchObject({ state: 'answered', confidence: 'low' });
  });

  it('palabre ask exits 3 on them', async () => {
    const out = captureIo({ DATA_DIR: data, ...env(), CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' });
    expect(await runAsk(['--json', 'Who won the 2022 World Cup?'], out)).toBe(3);
    expect(JSON.parse(out.out())).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.en });
    const louvre = captureIo({ DATA_DIR: data, ...env(), CHAT_PROVIDER: 'offline', LOG_LEVEL: 'silent' });
    expect(await runAsk(['--json', 'What time does the Louvre close?'], louvre)).toBe(3);
    expect(JSON.parse(louvre.out())).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.en });
  });
});

describe('named things the corpus never mentions', () => {
  it('finds file names, versions, dates, amounts and a name followed by its number', () => {
    expect(namedThings('Quelles sont les nouveautés du RGAA 5 ?')).toEqual(['RGAA 5']);
    expect(namedThings('How do I add a server to claude_desktop_config.json?')).toEqual(['claude_desktop_config.json']);
    expect(namedThings('What changed in revision 2026-03-01?')).toEqual(['2026-03-01']);
    expect(namedThings('What does WCAG 3.0 change?')).toEqual(['WCAG 3.0', '3.0']);
    expect(namedThings('Une amende de 20 000 € ?')).toEqual(['20 000 €']);
    expect(namedThings('Comment changer le port HTTP ?')).toEqual([]);
    // A leading underscore makes a code name (a cookie, a variable), whatever follows it.
    expect(namedThings('Quelle est la durée de vie du cookie _ga ?')).toEqual(['_ga']);
    expect(namedThings('Where is __dirname set?')).toEqual(['__dirname']);
  });

  it('« RGAA 5 » caps the confidence at "low" where « RGAA 4.1 », which the docs name, is "high"', async () => {
    // A high bound every answer reaches: only the named thing can keep one from "high".
    const { a } = await assistant({ CHAT_SCORE_CONFIDENT: '0', CHAT_PROVIDER: 'offline' });
    const known = await a.ask({ question: 'Quelles sont les nouveautés du RGAA 4.1 ?', settings: a.defaults() });
    expect(known).toMatchObject({ state: 'answered', confidence: 'high' });
    const unknown = await a.ask({ question: 'Quelles sont les nouveautés du RGAA 5 ?', settings: a.defaults() });
    expect(unknown).toMatchObject({ state: 'answered', confidence: 'low' });
  });

  it('a trap asking for a command of a tool the docs never show is capped at "low", the documented one is not', async () => {
    // A high bound nearly every answer reaches: only the answer-type check keeps one from "high".
    const { a } = await assistant({ CHAT_SCORE_CONFIDENT: '0.001', CHAT_PROVIDER: 'offline' });
    const npm = await a.ask({ question: 'What is the npm command to start with another HTTP port?', settings: a.defaults() });
    expect(npm).toMatchObject({ state: 'answered', confidence: 'high' });
    const pip = await a.ask({ question: 'What is the pip command to start with another HTTP port?', settings: a.defaults() });
    expect(pip).toMatchObject({ state: 'answered', confidence: 'low' });
  });
});

describe('what the corpus carries of a question', () => {
  let own: string;
  beforeAll(() => {
    own = mkdtempSync(join(tmpdir(), 'palabre-scope-carry-'));
    writeFileSync(join(own, 'setup.md'), '# Setup\n\nMake the starter script executable before the first run.\n');
    // « starter script » on several pages: a common pair, not a rare one.
    for (const page of ['deploy', 'upgrade', 'backup']) writeFileSync(join(own, `${page}.md`), `# ${page}\n\nThe starter script runs the ${page} step on the server.\n`);
    writeFileSync(join(own, 'network.md'), '# Network\n\nThe Wi-Fi of the office is not used by the server; the wired network is.\n');
    writeFileSync(join(own, 'cookies.md'), '# Cookies\n\nLe cookie de mesure d’audience a une durée de vie de 13 mois au plus.\n');
  });
  afterAll(() => rmSync(own, { recursive: true, force: true }));

  async function ownAssistant(extra: Record<string, string> = {}) {
    const provider = recordingProvider(() => ({ text: 'Réponse du modèle [1].' }));
    const a = createDocsAssistant({ config: testConfig({ CORPUS_DIR: own, CHAT_SCORE_THRESHOLD: '0.05', CHAT_CLAIM_CHECK: 'off', ...extra }), providers: registryOf(provider), persist: false });
    await a.ready();
    return { a, provider };
  }

  it('counts the parts of a hyphenated compound as one word', () => {
    const q = 'My home Wi-Fi router keeps dropping';
    const groups = wordGroups(q, analyzeQuery(q));
    const words = analyzeQuery(q).map((t) => t.word);
    expect(groups[words.indexOf('wi')]).toBe(groups[words.indexOf('fi')]);
    expect(new Set(groups).size).toBe(words.length - 1);
  });

  it('refuses an unrelated English question whose two ordinary words meet in a passage while its subject is nowhere in the docs', async () => {
    const { a, provider } = await ownAssistant();
    // « make » and « starter » meet on the setup page; « sourdough » and « scratch » are nowhere.
    const bread = await a.ask({ question: 'How do I make sourdough starter from scratch?', settings: a.defaults() });
    expect(bread).toMatchObject({ state: 'outOfScope', answer: OUT_OF_SCOPE_ANSWERS.en, sources: [] });
    // « Wi-Fi » on a page is one word there, not two held together.
    const router = await a.ask({ question: 'Why does my Wi-Fi router drop?', settings: a.defaults() });
    expect(router).toMatchObject({ state: 'outOfScope' });
    expect(provider.requests).toHaveLength(0);
    const network = a.search('Wi-Fi router', 5).filter((p) => p.path === 'network.md').map((p) => p.id);
    expect(network).not.toHaveLength(0);
    expect(a.retriever.heldTogether('Wi-Fi router', network)).toBe(1);
    expect(a.retriever.heldTogether('Wi-Fi server', network)).toBe(2);
  });

  it('answers a question with one word the docs do not use (the asker\'s synonym) when its other words are held together', async () => {
    const { a } = await ownAssistant();
    // « launch » is nowhere: the docs say « runs »; « starter script » is held together.
    const launch = await a.ask({ question: 'How do I launch the starter script?', settings: a.defaults() });
    expect(launch.state).toBe('answered');
    expect(launch.sources.length).toBeGreaterThan(0);
  });

  it('caps at "low" a question naming a code name the docs never mention (« _ga »), not the same question without it', async () => {
    // A high bound every answer reaches: only the named thing can keep one from "high".
    const { a } = await ownAssistant({ CHAT_SCORE_CONFIDENT: '0', CHAT_PROVIDER: 'offline' });
    const known = await a.ask({ question: 'Quelle est la durée de vie du cookie de mesure d’audience ?', settings: a.defaults() });
    expect(known).toMatchObject({ state: 'answered', confidence: 'high' });
    const named = await a.ask({ question: 'Quelle est la durée de vie du cookie _ga de mesure d’audience ?', settings: a.defaults() });
    expect(named).toMatchObject({ state: 'answered', confidence: 'low' });
  });
});
