import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correctionsSurface } from '../../actors/corrections/surface.js';
import { consigneText, EE_SUBJECTS, EE_TASKS, eeSubjectSchema } from '../../actors/corrections/eeSubjects.js';
import { countWords } from '../../actors/corrections/production.js';
import { WORD_LIMITS } from '../../actors/corrections/report.js';
import { createAuth } from '../../core/auth.js';
import type { RunningSurface } from '../../core/surfaceContract.js';
import { makeContext, T1_TEXTE } from './support.js';
import { surfaceMounter } from '../../core/server.js';

/**
 * The written-practice routes (`/api/ee/productions`) and pages (`/ee…`) through the corrections
 * surface on a real socket and SQLite file, offline grading: a candidate's production is graded
 * with the subject's instruction, stored, listed and reread by its owner only; bad input, a text
 * too short to grade and a text not in French are refused with a French message and store nothing.
 */

const ENGLISH = 'Hello everyone! I would like to invite you to my birthday party next Saturday evening at my house. There will be food, music and games, and you can bring your friends if you want. Please tell me before Thursday if you can come, so that I know how much food I should buy. See you soon!';
const SPANISH = 'Queridos vecinos, la próxima semana vamos a renovar nuestra cocina, de lunes a viernes, entre las nueve de la mañana y las cinco de la tarde. Lo sentimos mucho por el ruido y el polvo en las escaleras. Si algo les molesta, pueden llamarme en cualquier momento. Muchas gracias por su paciencia.';

describe('written practice over HTTP (corrections surface, offline)', () => {
  let env: ReturnType<typeof makeContext>;
  let server: Server;
  let base: string;
  let running: RunningSurface;
  let alice: string;
  let bob: string;
  const call = (path: string, init: { method?: string; body?: unknown; token?: string | null } = {}) =>
    fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
    });
  const submit = (body: unknown, token: string | null = alice) => call('/api/ee/productions', { method: 'POST', body, token });
  const stored = async () => Number((await running.health!() as { productions: number }).productions);

  beforeAll(async () => {
    env = makeContext();
    const app = express();
    server = createServer(app);
    running = await correctionsSurface.start(env.ctx);
    surfaceMounter({ app, server })('corrections', running);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const auth = createAuth(env.config);
    alice = await auth.mintToken({ sub: 'cand-alice', plan: 'free' });
    bob = await auth.mintToken({ sub: 'cand-bob', plan: 'free' });
  }, 60_000);
  afterAll(async () => {
    await running.stop();
    await new Promise<void>((r) => server.close(() => r()));
    env.close();
  });

  it('the subjects are valid, three per task, and the tasks carry the exam’s word limits', () => {
    for (const s of EE_SUBJECTS) expect(eeSubjectSchema.safeParse(s).success, s.id).toBe(true);
    expect(new Set(EE_SUBJECTS.map((s) => s.id)).size).toBe(EE_SUBJECTS.length);
    for (const t of EE_TASKS) {
      expect(EE_SUBJECTS.filter((s) => s.tache === t.tache)).toHaveLength(3);
      expect(t.mots).toEqual(WORD_LIMITS[t.tache]);
    }
    expect(EE_TASKS.reduce((n, t) => n + t.minutes, 0)).toBe(60);
    // Task 3 is an argumentation from two documents: both go with the instruction that is graded.
    for (const s of EE_SUBJECTS.filter((x) => x.tache === 'EE_T3')) {
      expect(s.documents).toHaveLength(2);
      for (const d of s.documents!) expect(consigneText(s)).toContain(d.texte);
    }
  });

  it('401 without a token; 400 with a French message for a bad body, an unknown subject or an extra field; nothing stored', async () => {
    expect((await submit({ sujet: 'ee-t1-travaux-voisins', texte: T1_TEXTE }, null)).status).toBe(401);
    expect((await call('/api/ee/productions')).status).toBe(401);
    for (const body of [
      { sujet: 'ee-t1-inconnu', texte: T1_TEXTE },
      { sujet: 'ee-t1-travaux-voisins', texte: '   ' },
      { sujet: 'ee-t1-travaux-voisins', texte: T1_TEXTE, tache: 'EE_T3' },
      { sujet: '../etc', texte: T1_TEXTE },
      { texte: T1_TEXTE },
    ]) {
      const res = await submit(body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      const out = (await res.json()) as { error: string; message: string };
      expect(out.error).toBe('invalid_body');
      expect(out.message).toMatch(/^Requête invalide : /);
    }
    expect(JSON.stringify(await (await submit({ sujet: 'ee-t1-inconnu', texte: T1_TEXTE })).json())).toContain('sujet inconnu');
    expect((await submit('{"sujet": ')).status).toBe(400);
    expect(await stored()).toBe(0);
  });

  it('a text too short to grade (422 too_short) and a text in English (422 not_french) get a French message; nothing stored', async () => {
    const short = await submit({ sujet: 'ee-t2-benevolat', texte: 'J’ai aidé des enfants à lire le samedi matin, c’était super.' });
    expect(short.status).toBe(422);
    const s = (await short.json()) as { error: string; message: string; words: number };
    expect(s.error).toBe('too_short');
    expect(s.words).toBe(countWords('J’ai aidé des enfants à lire le samedi matin, c’était super.'));
    expect(s.message).toContain(`Votre texte compte ${s.words} mots`);
    expect(s.message).toContain('120 à 150');
    expect(s.message).toContain('n’a pas été enregistré');
    for (const [sujet, texte] of [['ee-t1-fete-anniversaire', ENGLISH], ['ee-t1-travaux-voisins', SPANISH]] as const) {
      const res = await submit({ sujet, texte });
      expect(res.status, texte.slice(0, 20)).toBe(422);
      expect(await res.json()).toMatchObject({ error: 'not_french', message: expect.stringContaining('français') });
    }
    expect(await stored()).toBe(0);
    expect(await (await call('/api/ee/productions', { token: alice })).json()).toEqual({ productions: [] });
  });

  it('a production is graded with the subject’s instruction, stored, listed and reread by its owner only', async () => {
    const res = await submit({ sujet: 'ee-t1-travaux-voisins', texte: T1_TEXTE });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { productionId: string; url: string; report: { mots: number; tache: string; erreurs: Array<{ extrait: string }> } };
    expect(out.url).toBe(`/ee/productions/${out.productionId}`);
    expect(out.report).toMatchObject({ tache: 'EE_T1', mots: countWords(T1_TEXTE) });
    expect(out.report.erreurs.map((e) => e.extrait)).toContain('Je sais pas');
    expect(await stored()).toBe(1);

    const list = (await (await call('/api/ee/productions', { token: alice })).json()) as { productions: Array<Record<string, unknown>> };
    expect(list.productions).toHaveLength(1);
    expect(list.productions[0]).toMatchObject({ id: out.productionId, tache: 'EE_T1', sujet: { id: 'ee-t1-travaux-voisins', titre: 'Prévenir ses voisins de travaux' }, mots: out.report.mots, detectorsOnly: true });
    expect(typeof list.productions[0]!.scoreGlobal).toBe('number');

    const own = await call(`/api/ee/productions/${out.productionId}`, { token: alice });
    expect(own.status).toBe(200);
    expect(own.headers.get('cache-control')).toContain('no-store');
    const detail = (await own.json()) as { texte: string; consigne: string; report: { mots: number } };
    expect(detail.texte).toBe(T1_TEXTE);
    expect(detail.consigne).toBe(consigneText(EE_SUBJECTS.find((x) => x.id === 'ee-t1-travaux-voisins')!));
    expect(detail.report.mots).toBe(out.report.mots);

    // Another candidate: not found (its existence is not revealed), and an empty list.
    const other = await call(`/api/ee/productions/${out.productionId}`, { token: bob });
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: 'not_found', message: expect.stringContaining('introuvable') });
    expect(await (await call('/api/ee/productions', { token: bob })).json()).toEqual({ productions: [] });
    expect((await call(`/api/ee/productions/${out.productionId}`)).status).toBe(401);
    expect((await call('/api/ee/productions/not-a-uuid', { token: alice })).status).toBe(404);

    // A production sent to the raw API (no practice subject) is listed too, without a title.
    const raw = await call('/corrections/ee', { method: 'POST', token: alice, body: { tache: 'EE_T2', consigne: 'Racontez votre semaine.', texte: T1_TEXTE } });
    expect(raw.status).toBe(200);
    const both = (await (await call('/api/ee/productions', { token: alice })).json()) as { productions: Array<{ tache: string; sujet: { id: string | null } }> };
    expect(both.productions.map((p) => [p.tache, p.sujet.id])).toEqual([['EE_T2', null], ['EE_T1', 'ee-t1-travaux-voisins']]);
  });

  it('serves the pages: /ee lists the tasks and subjects, a subject page has the form, unknown ids are 404', async () => {
    const home = await call('/ee');
    expect(home.status).toBe(200);
    const html = await home.text();
    for (const t of EE_TASKS) expect(html).toContain(`id="ee-task-${t.tache}"`);
    for (const s of EE_SUBJECTS) expect(html).toContain(`/ee/sujets/${s.id}`);
    expect(home.headers.get('content-security-policy')).toContain("script-src 'self'");
    const page = await (await call('/ee/sujets/ee-t3-teletravail')).text();
    expect(page).toContain('<label for="ee-text">');
    expect(page).toContain('data-min="120" data-max="180" data-minutes="30"');
    expect(page).toContain('Document 2');
    const redirect = await fetch(`${base}/corrections`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([302, '/ee']);
    expect((await call('/ee/sujets/nope')).status).toBe(404);
    expect((await call('/ee/productions/nope')).status).toBe(404);
    expect((await call('/ee/static/write.js')).status).toBe(200);
    expect((await call('/t2/static/report.js')).status).toBe(200);
  });
});
