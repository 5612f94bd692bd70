import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correctionsSurface } from '../../actors/corrections/surface.js';
import { createAuth } from '../../core/auth.js';
import type { RunningSurface } from '../../core/surfaceContract.js';
import { ENGLISH_LETTER, makeContext, T1_CONSIGNE, T1_TEXTE } from './support.js';
import { surfaceMounter } from '../../core/server.js';

describe('HTTP /corrections (offline provider, real socket)', () => {
  let env: ReturnType<typeof makeContext>;
  let server: Server;
  let base: string;
  let running: RunningSurface;
  let token: string;
  const post = (path: string, body: unknown, auth: string | null = token) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  beforeAll(async () => {
    env = makeContext({ GRAMMALECTE: 'auto' }); // the real engine when installed (always in CI)
    const app = express();
    server = createServer(app);
    running = await correctionsSurface.start(env.ctx);
    surfaceMounter({ app, server })('corrections', running);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    token = await createAuth(env.config).mintToken({ sub: 'cand-http', plan: 'free' });
  }, 180_000);
  afterAll(async () => {
    await running.stop();
    await new Promise<void>((r) => server.close(() => r()));
    env.close();
  });

  it('401 without a token or with a bad one; nothing is stored', async () => {
    const none = await post('/corrections/ee', { tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE }, null);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: 'missing_token' });
    expect((await post('/corrections/eo', {}, 'not.a.jwt')).status).toBe(401);
    expect(await running.health!()).toMatchObject({ productions: 0, provider: 'offline' });
  });

  it('400 with the zod issues for a bad body, a bad JSON or a transcript without candidate turns', async () => {
    const bad = await post('/corrections/ee', { tache: 'EE_T9', consigne: '', texte: 3, extra: true });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: string; issues: Array<{ path: string[] }> };
    expect(body.error).toBe('invalid_body');
    expect(body.issues.map((i) => i.path[0] ?? '')).toEqual(expect.arrayContaining(['tache', 'consigne', 'texte']));
    expect((await post('/corrections/ee', '{"tache": ')).status).toBe(400);
    const eo = await post('/corrections/eo', { tache: 'EO_T2', consigne: 'x', transcript: [{ speaker: 'interlocutor', text: 'Bonjour' }] });
    expect(eo.status).toBe(400);
    expect(JSON.stringify(await eo.json())).toContain('aucun tour du candidat');
    expect(await running.health!()).toMatchObject({ productions: 0 });
  });

  it('POST /corrections/ee and /eo return a valid detectors-only report (offline) and store it', async () => {
    const ee = await post('/corrections/ee', { tache: 'EE_T1', consigne: T1_CONSIGNE, texte: T1_TEXTE });
    expect(ee.status).toBe(200);
    const out = (await ee.json()) as { productionId: string; report: { detectorsOnly: boolean; detectorsOnlyReason: string; erreurs: Array<{ code: string }>; nclc: { niveau: string } } };
    expect(out.report).toMatchObject({ detectorsOnly: true, detectorsOnlyReason: 'offline_provider' });
    expect(out.report.erreurs.map((e) => e.code)).toContain('anglicisme');
    const eo = await post('/corrections/eo', {
      tache: 'EO_T3', consigne: 'Donnez votre opinion.',
      transcript: [{ speaker: 'interlocutor', text: 'Qu’en pensez-vous ?' }, { speaker: 'candidate', text: "Moi je pense que c'est pas une bonne idée, le meeting du lundi." }],
    });
    expect(eo.status).toBe(200);
    const oral = (await eo.json()) as { report: { criteres: Record<string, { evalue: boolean }>; erreurs: Array<{ code: string }> } };
    expect(oral.report.criteres.phonologie!.evalue).toBe(false);
    expect(oral.report.erreurs.map((e) => e.code).sort()).toEqual(['anglicisme', 'negation_incomplete']);
    expect(await running.health!()).toMatchObject({ productions: 2 });
  });

  it('POST /corrections/eo with a T2 fact sheet: a greeting and one question stay in the lowest bands, with the reason; a bad sheet is a 400', async () => {
    const faits = [
      { theme: 'tarifs', keywords: ['prix', 'combien'], answer: 'L’abonnement mensuel coûte 49 dollars, ou 480 dollars pour l’année complète.' },
      { theme: 'horaires', keywords: ['horaires', 'ouvert'], answer: 'Le club est ouvert de six heures à vingt-trois heures en semaine.' },
    ];
    const transcript = [
      { speaker: 'candidate', text: "Bonjour monsieur, je voudrais savoir combien coûte l'abonnement de votre club, s'il vous plaît." },
      { speaker: 'interlocutor', text: faits[0]!.answer },
    ];
    const res = await post('/corrections/eo', { tache: 'EO_T2', consigne: 'Vous téléphonez à un club de sport pour vous renseigner.', transcript, sujet: { faits } });
    expect(res.status).toBe(200);
    const { report } = (await res.json()) as { report: { scoreGlobal: number; realisation: { niveau: string; raison: string; mesures: Record<string, number> } } };
    expect(report.scoreGlobal).toBeLessThanOrEqual(5);
    expect(report.realisation).toMatchObject({ niveau: 'insuffisante', mesures: { faitsObtenus: 1, faitsTotal: 2, mots: 14 } });
    expect(report.realisation.raison).toMatch(/^Vous n'avez posé qu'une question sur le sujet/);
    const bad = await post('/corrections/eo', { tache: 'EO_T2', consigne: 'x', transcript, sujet: { faits: 'tout' } });
    expect(bad.status).toBe(400);
  });

  it('422 not_french for English, Spanish, Chinese and Arabic productions: nothing graded, nothing stored', async () => {
    const before = ((await running.health!()) as { productions: number }).productions;
    const texts = [
      'Hello Mark, I wanted to tell you that the meeting tomorrow is cancelled because the manager is sick. We will reschedule it next week. Best regards, John',
      'Hola Marta, te escribo para invitarte a mi cumpleaños el sábado. Vamos a cenar en un restaurante cerca de mi casa y después bailar. Un abrazo, Lucía',
      '你好，我想告诉你明天的会议取消了，因为经理生病了。我们下周再安排。请告诉我星期四是否可以。谢谢！',
      'مرحبا، أردت أن أخبرك أن اجتماع الغد قد ألغي لأن المدير مريض. سنعيد جدولته الأسبوع المقبل. مع تحياتي',
    ];
    for (const texte of texts) {
      const res = await post('/corrections/ee', { tache: 'EE_T1', consigne: T1_CONSIGNE, texte });
      expect(res.status, texte.slice(0, 20)).toBe(422);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe('not_french');
      expect(body.message).toContain('français');
    }
    const oral = await post('/corrections/eo', { tache: 'EO_T2', consigne: 'x', transcript: [{ speaker: 'candidate', text: texts[0]! }] });
    expect(oral.status).toBe(422);
    expect(((await running.health!()) as { productions: number }).productions).toBe(before);
    // French with a few English words is French.
    const mixed = await post('/corrections/ee', { tache: 'EE_T1', consigne: T1_CONSIGNE, texte: "Hey Sarah,\nJe pense qu'on devrait organiser un lunch avec le manager pour fêter la fin du projet. On peut commander des snacks et réserver un food truck pour vendredi midi. Tu peux demander à Marc s'il est libre ?\nÀ plus tard,\nJohn" });
    expect(mixed.status).toBe(200);
  });

  it('an English letter → 422 not_french, nothing stored, patterns unchanged; learner French full of errors → 200', async () => {
    const patterns = async () => (await fetch(`${base}/candidates/cand-http/patterns`, { headers: { authorization: `Bearer ${token}` } })).json();
    const before = { health: await running.health!(), patterns: await patterns() };
    const res = await post('/corrections/ee', { tache: 'EE_T1', consigne: T1_CONSIGNE, texte: ENGLISH_LETTER });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: 'not_french', detected: 'eng' });
    expect(await running.health!()).toMatchObject({ productions: (before.health as { productions: number }).productions });
    expect(await patterns()).toEqual(before.patterns);
    const learner = await post('/corrections/ee', { tache: 'EE_T1', consigne: T1_CONSIGNE, texte: LEARNER_FRENCH });
    expect(learner.status).toBe(200);
    expect(((await running.health!()) as { productions: number }).productions).toBe((before.health as { productions: number }).productions + 1);
  });

  it('/healthz names the correction engine and how to install the other', async () => {
    const h = (await running.health!()) as { engine: { engine: string; install?: string } };
    expect(['grammalecte', 'detectors']).toContain(h.engine.engine);
    if (h.engine.engine === 'detectors') expect(h.engine.install).toContain('install.sh');
    expect(running.notes!()[0]).toMatch(/^corrections engine: /);
  });

  it('GET /candidates/:id/patterns: own patterns only (403 for another candidate, 401 without token)', async () => {
    const res = await fetch(`${base}/candidates/cand-http/patterns`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const p = (await res.json()) as { productions: number; window: number; threshold: number };
    expect(p).toMatchObject({ window: 5, threshold: 3 });
    expect(p.productions).toBeGreaterThanOrEqual(2);
    expect((await fetch(`${base}/candidates/someone-else/patterns`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(403);
    expect((await fetch(`${base}/candidates/cand-http/patterns`)).status).toBe(401);
  });
});

/** A2 learner French: missing negations, agreement, accents and prepositions, one English word. */
const LEARNER_FRENCH = `Bonjour Madame,
Je vous ecris pour dire que je suis pas content de l'appartement. Le chauffage il marche pas depuis deux semaine et il fait tres froid dans la chambre. J'ai appelé le concierge beaucoup de fois mais personne il vient, c'est pas cool. Je veux que vous reparer le chauffage vite sinon je paye pas le loyer de le mois prochain.
Merci de me repondre,
Ahmed`;
