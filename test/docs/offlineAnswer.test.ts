import { describe, expect, it } from 'vitest';
import { createDocsAssistant } from '../../actors/docs/assistant.js';
import { createOfflineProvider } from '../../actors/llm/offline.js';
import { registryOf, testConfig } from './fixtures.js';
import { extractive, extractiveAnswer, OFFLINE_PREFIX, OFFLINE_PREFIXES, SINGLE_SENTENCE_NOTES } from '../../actors/docs/offlineAnswer.js';

const wrapped = [
  'The inspector draws the selected actor\'s chart, laid out offline with ELK and drawn as',
  'SVG, with the current state highlighted so that a developer sees where the conversation is.',
  '',
  '- Pause stops the event log without closing the socket.',
  '- Filter keeps only the events whose type matches.',
].join('\n');

describe('offline extractive answer', () => {
  it('quotes whole sentences: a paragraph wrapped over several lines is one sentence', () => {
    const answer = extractiveAnswer({
      model: 'offline',
      messages: [{ role: 'user', content: 'Comment le chart de l\'inspector est-il dessiné avec le state highlighted ?' }],
      documents: [{ id: 'p1', title: 'Inspector', source: 'inspect.md#inspector', text: wrapped }],
    });
    expect(answer.text.startsWith(OFFLINE_PREFIX)).toBe(true);
    expect(answer.text).toContain('« The inspector draws the selected actor\'s chart, laid out offline with ELK and drawn as SVG, with the current state highlighted so that a developer sees where the conversation is. » [1]');
    expect(answer.citations).toEqual([{ sourceId: 'p1', citedText: expect.stringContaining('drawn as SVG') }]);
  });

  it('keeps list items apart and cites only the passages it quotes', () => {
    const answer = extractiveAnswer({
      model: 'offline',
      messages: [{ role: 'user', content: 'What does Pause do to the event log?' }],
      documents: [
        { id: 'a', title: 'Unrelated', source: 'x.md', text: 'Mayonnaise needs an egg yolk and oil, whisked slowly.' },
        { id: 'b', title: 'Inspector', source: 'inspect.md', text: wrapped },
      ],
    });
    expect(answer.text).toContain('« Pause stops the event log without closing the socket. » [2]');
    expect(answer.text).not.toContain('Filter keeps only the events whose type matches. Pause');
    expect(answer.citations?.map((c) => c.sourceId)).toEqual(['b']);
  });
});

describe('offline extractive answer: informative words only', () => {
  const docs = [
    {
      id: 'p1',
      title: 'rgpd/17.md › En pratique',
      source: 'rgpd/17.md#en-pratique',
      text: [
        'Les informations collectées par ces traceurs sont conservées pour une durée maximale de vingt-cinq mois.',
        'Il faut garder en mémoire le contenu du panier pour les données du site marchand.',
        'Les données de connexion servent à garder une session ouverte.',
      ].join('\n\n'),
    },
  ];

  it('does not quote a sentence that shares only a common word with the question, and says when it has one sentence', () => {
    const answer = extractiveAnswer({ model: 'offline', messages: [{ role: 'user', content: 'Combien de temps garder les informations collectées par les traceurs ?' }], documents: docs });
    expect(answer.text).toContain('vingt-cinq mois');
    expect(answer.text).not.toContain('panier');
    expect(answer.text).not.toContain('session ouverte');
    expect(answer.text).toContain(SINGLE_SENTENCE_NOTES.fr);
  });

  it('quotes the best-ranked passage when one of its sentences carries a question word', () => {
    const answer = extractiveAnswer({
      model: 'offline',
      messages: [{ role: 'user', content: 'Quels principes de sécurité et de consentement impose la spécification ?' }],
      documents: [
        { id: 'top', title: 'Key Principles', source: 'spec.md#key-principles', text: 'Users must explicitly consent to and understand all data access and operations.' },
        { id: 'low', title: 'Authorization', source: 'auth.md#security', text: 'Proxy servers must obtain user consent for each registered client, for security reasons, before any request.' },
      ],
    });
    expect(answer.citations?.map((c) => c.sourceId)).toContain('top');
  });

  it('with extractive.leads = 2, quotes the second-ranked passage too, before a lower one that weighs a little more', () => {
    extractive.leads = 2;
    const answer = extractiveAnswer({
      model: 'offline',
      messages: [{ role: 'user', content: 'How does the client resume the event stream after the connection drops?' }],
      documents: [
        { id: 'first', title: 'Resumability', source: 'transports.md#resumability', text: 'A client resumes a broken stream by sending the last event ID it received.' },
        { id: 'second', title: 'Listening', source: 'transports.md#listening', text: 'The server may close the connection at any time; the client then opens a new stream.' },
        { id: 'third', title: 'Sessions', source: 'transports.md#sessions', text: 'When the connection drops, the client resumes the event stream of its session.' },
        { id: 'fourth', title: 'Cancellation', source: 'cancel.md', text: 'After the connection drops, the client resumes the event stream and the stream ends.' },
      ],
    });
    extractive.leads = 1;
    expect(answer.citations?.map((c) => c.sourceId)).toContain('second');
    expect(answer.citations?.map((c) => c.sourceId)).toContain('first');
  });

  it('answers in the question\'s language', () => {
    const answer = extractiveAnswer({ model: 'offline', messages: [{ role: 'user', content: 'How long are the informations collectées par les traceurs kept?' }], documents: docs });
    expect(answer.text.startsWith(OFFLINE_PREFIXES.en)).toBe(true);
  });
});

describe('offline extractive answer: passages nearly as close as the best are quoted (§ Sixth round)', () => {
  const lead = [
    'Retention of access logs is six months for access logs of the service.',
    'Access logs retention can be extended when the access logs serve security.',
    'Access logs retention is documented in the register of access logs.',
    'Access logs retention must be justified for access logs of every kind.',
  ].join(' ');
  const other = 'The retention of access logs is decided by the controller.';
  const ask = () =>
    extractiveAnswer({
      model: 'offline',
      messages: [{ role: 'user', content: 'How long is the retention of access logs?' }],
      documents: [
        { id: 'a', title: 'Logs', source: 'a.md#logs', text: lead },
        { id: 'b', title: 'Controller', source: 'b.md#controller', text: other },
      ],
    });

  it('gives the best sentence of a close passage of another page its turn before more sentences of the lead', () => {
    const a = ask();
    expect(a.citations?.map((c) => c.sourceId)).toEqual(['a', 'b']);
    expect(a.text).toContain('« The retention of access logs is decided by the controller. » [2]');
    // Marks in the order of the sources: [1] before [2], so the list is in first-mark order.
    expect(a.text.indexOf('[1]')).toBeLessThan(a.text.indexOf('[2]'));
  });

  it('quoted only the lead passage in plain score order (the former default), which the setting restores', () => {
    const saved = { ...extractive };
    Object.assign(extractive, { closeShare: 2, sentences: 3 });
    try {
      expect(ask().citations?.map((c) => c.sourceId)).toEqual(['a']);
    } finally {
      Object.assign(extractive, saved);
    }
  });
});

describe('offline extractive answer: whole answers, no file lists', () => {
  const doc = (id: string, text: string) => ({ id, title: id, source: `${id}.md`, text });

  it('a sentence ending on a colon brings the block it announces; a table row is quoted alone, its header never', () => {
    const answer = extractiveAnswer({
      model: 'offline',
      messages: [{ role: 'user', content: 'Comment changer le port HTTP ?' }],
      documents: [
        doc('errors', 'A port that is already taken exits with code 2 and names the variable to change:\n\npalabre: port 3000 is already in use (HTTP). Set PORT to a free port.'),
        doc('start', 'Every start failure is one line:\n\nexit code | cause | what to do\n2 | invalid configuration | fix those keys\n2 | port 3000 … is already in use (HTTP) | set PORT to a free port: PORT=3001 npm start'),
      ],
    });
    expect(answer.text).toContain('names the variable to change: palabre: port 3000 is already in use (HTTP). Set PORT to a free port. » [1]');
    expect(answer.text).toContain('« 2 | port 3000 … is already in use (HTTP) | set PORT to a free port: PORT=3001 npm start » [2]');
    expect(answer.text).not.toContain('exit code | cause');
    expect(answer.text).not.toContain('fix those keys');
  });

  it('never quotes a list of files, nor a question the docs give as an example', () => {
    const answer = extractiveAnswer({
      model: 'offline',
      messages: [{ role: 'user', content: 'Where is the store port of the HTTP migrations?' }],
      documents: [
        doc('tree', 'a migration | beside the store: actors/docs/chatConfigStore.ts, transports/http/adminStore.ts, core/store/appStore.ts (store port, HTTP)\nwhat a surface starts | actors/<surface>/surface.ts'),
        doc('index', 'You can ask, for example, « Where is the store port of the HTTP migrations? » and get an answer.'),
        doc('store', 'Migrations of the HTTP stores run through the store port at start, in version order.'),
      ],
    });
    expect(answer.text).toContain('« Migrations of the HTTP stores run through the store port at start, in version order. » [3]');
    expect(answer.text).not.toContain('chatConfigStore.ts');
    expect(answer.text).not.toContain('for example');
  });
});

describe('offline, on the project\'s own docs/', () => {
  it('« Comment changer le port HTTP ? » quotes the PORT sentence with its command, and no file list', async () => {
    const a = createDocsAssistant({ config: testConfig({ CORPUS_DIR: 'docs', CHAT_PROVIDER: 'offline' }), providers: registryOf(createOfflineProvider()), persist: false });
    await a.ready();
    const answer = await a.ask({ question: 'Comment changer le port HTTP ?', settings: a.defaults() });
    expect(answer.state).toBe('answered');
    expect(answer.answer).toMatch(/set PORT to a free port: PORT=3001 npm start/);
    expect(answer.answer).not.toMatch(/\.ts\b/);
  });
});
