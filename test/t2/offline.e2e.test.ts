import { afterEach, describe, expect, it } from 'vitest';
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
