import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SimulatedClock } from 'xstate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCorrectionService } from '../../actors/corrections/service.js';
import { reportSchema } from '../../machines/correctionReport.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';
import { makeContext, T1_CONSIGNE, T1_TEXTE, validWrittenAnswer } from './support.js';

const MARKER = 'INVENTÉ-ZQX';
/** Structurally fine but breaks the rules: an invented quote and an `autre` without description. */
function invalidAnswer(): string {
  const a = validWrittenAnswer();
  a.erreurs = [
    { code: 'accord_sujet_verbe', critere: 'competence_grammaticale', description: null, extrait: `les enfants joue ${MARKER}`, correction: 'jouent' },
    { code: 'autre', critere: 'competence_lexicale', description: null, extrait: 'Je sais pas', correction: '…' },
  ];
  a.criteres.adequation_tache.justification = `Justification ${MARKER}`;
  return JSON.stringify(a);
}

describe('correction service over the real OpenAI provider and the wire fake', () => {
  let fake: OpenAIFake;
  let env: ReturnType<typeof makeContext>;
  beforeAll(async () => {
    // The French dictionary takes seconds to build: once, in the hook (60 s budget), not in a test.
    fake = await startOpenAIFake();
  }, 180_000);
  afterAll(() => fake.close());
  afterEach(() => {
    fake.reset();
    env?.close();
  });
  const start = () => {
    env = makeContext({ OPENAI_API_KEY: 'sk-test-corrections', OPENAI_BASE_URL: `${fake.url}/v1`, CORRECTION_PROVIDER: 'openai', CORRECTION_MODEL: 'deepseek-chat' });
    return createCorrectionService(env.ctx);
  };
  const dbText = () => {
    const rows = env.ctx.db.prepare('SELECT * FROM correction_productions').all();
    const errors = env.ctx.db.prepare('SELECT * FROM correction_errors').all();
    return JSON.stringify([rows, errors]);
  };

  it('valid first answer: model report merged with the detectors (no duplicates), stored', async () => {
    const service = start();
    fake.script({ text: JSON.stringify(validWrittenAnswer()) });
    const out = await service.correctWritten({ candidateId: 'c1', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE });
    const report = reportSchema.parse(out.report);
    expect(report.source).toBe('model');
    expect(report.detectorsOnly).toBe(false);
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body as { messages: Array<{ role: string; content: string }>; response_format?: unknown; model: string };
    expect(body.model).toBe('deepseek-chat');
    expect(body.messages[0]!.content).toContain('negation_incomplete');
    expect(body.messages.at(-1)!.content).toContain('Je sais pas encore');
    // « Je sais pas » found by both: once, from the model; « checker » from the anglicism detector only.
    expect(report.erreurs.filter((e) => e.code === 'negation_incomplete')).toHaveLength(1);
    expect(report.erreurs.find((e) => e.code === 'negation_incomplete')!.origine).toBe('modele');
    expect(report.erreurs.find((e) => e.code === 'anglicisme')).toMatchObject({ extrait: 'checker', origine: 'detecteur' });
    expect(report.scoreGlobal).toBe(13.5);
    expect(report.nclc.niveau).toBe('8');
    expect((await service.store.get(out.productionId))!.report).toEqual(report);
  });

  it('first answer invalid, second valid: one repair round with the validation errors, the valid report stored', async () => {
    const service = start();
    fake.script({ text: invalidAnswer() }, { text: '```json\n' + JSON.stringify(validWrittenAnswer()) + '\n```' });
    const out = await service.correctWritten({ candidateId: 'c1', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE });
    expect(out.report.detectorsOnly).toBe(false);
    expect(fake.requests).toHaveLength(2);
    const repair = (fake.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(repair.at(-2)).toMatchObject({ role: 'assistant' });
    expect(repair.at(-1)!.content).toMatch(/ne figure pas mot pour mot/);
    expect(repair.at(-1)!.content).toMatch(/"autre" exige une description/);
    expect(dbText()).not.toContain(MARKER);
  });

  it('both answers invalid: the detectors-only report, marked with the reason; nothing of the answers stored', async () => {
    const service = start();
    fake.script({ text: invalidAnswer() }, { text: 'Voici mon analyse : le texte est bon.' });
    const out = await service.correctWritten({ candidateId: 'c1', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE });
    const report = reportSchema.parse(out.report);
    expect(fake.requests).toHaveLength(2);
    expect(report).toMatchObject({ detectorsOnly: true, source: 'detectors', detectorsOnlyReason: 'invalid_after_repair' });
    expect(report.avertissements[0]).toMatch(/détecteurs automatiques seuls/);
    expect(report.erreurs.every((e) => e.origine === 'detecteur')).toBe(true);
    expect(report.erreurs.map((e) => e.code)).toEqual(expect.arrayContaining(['negation_incomplete', 'anglicisme']));
    expect(dbText()).not.toContain(MARKER);
    expect(dbText()).not.toContain('Voici mon analyse');
  });

  it('provider down (HTTP 500, then a closed port): the detectors-only report with the reason', async () => {
    const service = start();
    fake.script({ status: 500 });
    const out = await service.correctOral({
      candidateId: 'c2', tache: 'EO_T2', consigne: 'Vous appelez une agence.', kind: 'EO_T2_LIVE', meta: { sessionId: 's1' }, audioPath: '/tmp/s1.wav',
      transcript: [{ speaker: 'candidate', text: "Bonjour, je sais pas si c'est ouvert samedi ?" }, { speaker: 'interlocutor', text: 'Oui, de 9 h à 17 h.' }],
    });
    expect(out.report).toMatchObject({ detectorsOnly: true, detectorsOnlyReason: 'model_unreachable: server' });
    const stored = (await service.store.get(out.productionId))!;
    expect(stored).toMatchObject({ kind: 'EO_T2_LIVE', tache: 'EO_T2', audioPath: '/tmp/s1.wav', meta: { sessionId: 's1' } });
    const r = reportSchema.parse(stored.report);
    expect(r.criteres.phonologie).toMatchObject({ score: 0, evalue: false });
    expect(r.erreurs.map((e) => e.code)).toContain('negation_incomplete');

    env.close();
    env = makeContext({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', CORRECTION_PROVIDER: 'openai' });
    const down = createCorrectionService(env.ctx);
    const out2 = await down.correctWritten({ candidateId: 'c1', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE });
    expect(out2.report).toMatchObject({ detectorsOnly: true, detectorsOnlyReason: 'model_unreachable: network' });
  });
});

describe('grading deadline (simulated clock)', () => {
  it('a model slower than CORRECTION_TIMEOUT_MS − 3 s: detectors-only report (timeout), the request in flight aborted', async () => {
    const fake = await startOpenAIFake();
    const clock = new SimulatedClock();
    const env = makeContext({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1`, CORRECTION_PROVIDER: 'openai', CORRECTION_ATTEMPT_TIMEOUT_MS: '60000' }, { clock });
    try {
      fake.script({ text: JSON.stringify(validWrittenAnswer()), delayMs: 120_000 });
      const service = createCorrectionService(env.ctx);
      const pending = service.correctWritten({ candidateId: 'slow', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE });
      const [req] = await fake.waitForRequests(1);
      clock.increment(51_999);
      expect(env.ctx.runtime.countByKind()).toEqual({ correction: 1 });
      clock.increment(1);
      const out = await pending;
      expect(out.report).toMatchObject({ detectorsOnly: true, detectorsOnlyReason: 'timeout' });
      expect(await req!.done).toBe('client-closed');
      expect(env.ctx.runtime.countByKind()).toEqual({});
    } finally {
      env.close();
      await fake.close();
    }
  });
});

describe('offline provider', () => {
  it('no key: the report comes from the detectors alone and says so; the correction actor is released', async () => {
    const env = makeContext();
    try {
      const service = createCorrectionService(env.ctx);
      expect(service.provider().name).toBe('offline');
      const out = await service.correctWritten({ candidateId: 'c9', tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE });
      const report = reportSchema.parse(out.report);
      expect(report).toMatchObject({ detectorsOnly: true, detectorsOnlyReason: 'offline_provider', source: 'detectors' });
      expect(report.conseils).toHaveLength(3);
      expect(report.pointsForts.length).toBeGreaterThan(0);
      expect(env.ctx.runtime.countByKind()).toEqual({});
      expect(readFileSync(join(env.dir, 'palabre.db')).length).toBeGreaterThan(0);
    } finally {
      env.close();
    }
  });
});
