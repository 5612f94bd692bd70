import { afterEach, describe, expect, it } from 'vitest';
import { registerOfflineResponder } from '../../actors/llm/offline.js';
import { CLOSING_ANSWER, GREETING_ANSWER, NO_INFORMATION_ANSWER } from '../../actors/t2/factSheetResponder.js';
import { t2OfflineResponder } from '../../actors/t2/offlineResponder.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { LiveClient, startT2, type T2Env } from './support.js';

/**
 * A fresh machine: no Gemini key, no LLM key. The same protocol runs in text mode, the offline
 * interlocutor answers from the fact sheet, and the real corrections service (detectors-only
 * report from the offline provider) grades the session and stores the production EO_T2_LIVE.
 */
let env: T2Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('offline end to end with the real corrections service', () => {
  it('text dialogue → report → production saved', async () => {
    env = await startT2({ realCorrections: true });
    const c = await LiveClient.open(env, { token: await env.mint('premium', 'cand-offline'), sujet: 'location-voiture' });
    await c.until(() => c.states().includes('listening'), 'listening', 20000);
    for (const q of ['Bonjour, je voudrais louer une voiture pour une semaine, quel est le prix ?', 'Est-ce que l’assurance est incluse ?', 'Avez-vous des sièges pour les enfants ?']) {
      const before = c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final).length;
      c.send({ type: 'text', text: q });
      await c.until(() => c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final).length > before, `answer to ${q}`, 20000);
    }
    const answers = c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final).map((m) => String(m.text));
    expect(answers[0]).toContain('390 dollars');
    expect(answers[1]).toContain('franchise');
    expect(answers[2]).toContain('sièges pour enfants');
    c.send({ type: 'end' });
    const { code } = await c.closed;
    expect(code).toBe(1000);
    const report = c.find('report')!;
    const r = report.report as Record<string, unknown> & { t2: { rules: { replies: number; compliant: number } } };
    expect(r.t2.rules).toMatchObject({ replies: 3, compliant: 3 });
    const row = env.ctx.db.prepare('SELECT production_id, candidate_id, status FROM t2_sessions').get() as { production_id: string; candidate_id: string; status: string };
    expect(row).toMatchObject({ production_id: report.productionId, candidate_id: 'cand-offline', status: 'graded' });
    // The corrections service stored the production as EO_T2_LIVE with its transcript and audio path.
    const prod = env.ctx.db.prepare('SELECT kind, tache, candidate_id, transcript FROM correction_productions WHERE id = ?').get(report.productionId) as { kind: string; tache: string; candidate_id: string; transcript: string };
    expect(prod).toMatchObject({ kind: 'EO_T2_LIVE', tache: 'EO_T2', candidate_id: 'cand-offline' });
    expect(JSON.parse(prod.transcript)).toHaveLength(6);
  }, 120_000);
});

/** Sends each message in text mode and returns the interlocutor's final replies, then the report. */
async function dialogue(e: T2Env, sujet: string, questions: string[]): Promise<{ answers: string[]; rules: RulesReport }> {
  const c = await LiveClient.open(e, { token: await e.mint('premium', 'cand-topic'), sujet });
  await c.until(() => c.states().includes('listening'), 'listening', 20000);
  const finals = () => c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final).map((m) => String(m.text));
  for (const q of questions) {
    const before = finals().length;
    c.send({ type: 'text', text: q });
    await c.until(() => finals().length > before, `answer to ${q}`, 20000);
  }
  c.send({ type: 'end' });
  expect((await c.closed).code).toBe(1000);
  return { answers: finals(), rules: (c.find('report')!.report as { t2: { rules: RulesReport } }).t2.rules };
}

interface RulesReport { replies: number; compliant: number; rules: Array<{ rule: string; violations: number }> }

describe('offline interlocutor on topic, through the real T2 WebSocket edge', () => {
  const cuisine = SEED_SUBJECTS.find((s) => s.id === 'cours-de-cuisine')!;
  const fact = (theme: string) => cuisine.factSheet.find((f) => f.theme === theme)!.answer;
  const QUESTIONS = ['Bonjour…', 'Quel est le prix d’un atelier ?', 'Est-ce qu’il faut apporter un tablier ?', 'merci, bonne journée'];

  it('greets, answers the fact asked, says it has no answer, closes; the report says every reply kept the rules', async () => {
    env = await startT2();
    const { answers, rules } = await dialogue(env, 'cours-de-cuisine', QUESTIONS);
    expect(answers).toEqual([GREETING_ANSWER, fact('prix'), NO_INFORMATION_ANSWER, CLOSING_ANSWER]);
    expect(rules).toMatchObject({ replies: 4, compliant: 4 });
  }, 60_000);

  it('a wandering interlocutor (the gift voucher to a greeting, the price again) is reported as such', async () => {
    env = await startT2();
    // The offline provider's T2 responder replaced by one that answers the first money fact, as the
    // first keyword matcher did: the monitor, fed the session's fact sheet and questions, must see it.
    const wander = registerOfflineResponder('t2', (req) => (/bonjour|merci/i.test(req.messages.at(-1)?.content ?? '') ? fact('bon cadeau') : fact('prix')));
    try {
      const { answers, rules } = await dialogue(env, 'cours-de-cuisine', QUESTIONS);
      expect(answers).toEqual([fact('bon cadeau'), fact('prix'), fact('prix'), fact('bon cadeau')]);
      expect(rules).toMatchObject({ replies: 4, compliant: 1 });
      expect(rules.rules.find((r) => r.rule === 'answers_question')!.violations).toBe(3);
      expect(rules.rules.find((r) => r.rule === 'no_repeat')!.violations).toBe(2);
    } finally {
      wander();
      registerOfflineResponder('t2', t2OfflineResponder);
    }
  }, 60_000);
});
