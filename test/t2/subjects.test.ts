import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run as sujets } from '../../cli/commands/sujetsCommand.js';
import { FactSheetResponder, VAGUE_ANSWER } from '../../actors/t2/factSheetResponder.js';
import { checkReply, RuleMonitor } from '../../actors/t2/ruleMonitor.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { subjectInputSchema } from '../../actors/t2/subjects.js';
import { startT2, type T2Env } from './support.js';
import { captureIo } from '../support/cliIo.js';

function io(env: Record<string, string>) {
  const c = captureIo(env);
  return { io: c, out: c.out, err: c.err };
}

describe('seeded subjects', () => {
  it('are 9 valid EO_T2 training subjects with distinct ids', () => {
    expect(SEED_SUBJECTS).toHaveLength(9);
    const parsed = SEED_SUBJECTS.map((s) => subjectInputSchema.parse(s));
    expect(new Set(parsed.map((s) => s.id)).size).toBe(9);
    for (const s of parsed) {
      expect(s.tache).toBe('EO_T2');
      expect(s.mode).toBe('entrainement');
    }
  });

  it('have fact-sheet answers that obey the §3 rules themselves', () => {
    for (const s of SEED_SUBJECTS) for (const f of s.factSheet) expect([f.answer, checkReply(f.answer)]).toEqual([f.answer, []]);
    expect(checkReply(VAGUE_ANSWER)).toEqual([]);
  });

  it('the offline interlocutor answers one fact per question, consistently', () => {
    const r = new FactSheetResponder(subjectInputSchema.parse(SEED_SUBJECTS[0]));
    const rent = r.answer('Combien coûte le loyer ?');
    expect(rent).toContain('1 150 dollars');
    expect(r.answer('Et le loyer, c’est combien déjà ?')).toBe(rent);
    expect(r.answer('Est-ce que les chats sont acceptés ?')).toContain('chats sont acceptés');
    expect(r.answer('Euh…')).toBe(VAGUE_ANSWER);
  });
});

describe('rule monitor', () => {
  it('flags each §3 rule a transcript can show', () => {
    expect(checkReply('Le loyer est de 900 dollars par mois. Voulez-vous visiter l’appartement samedi matin avec moi ?')).toContain('no_question');
    expect(checkReply('Oui.')).toContain('length_15_25');
    expect(checkReply('Il y a trois options :\n- la formule mensuelle à 49 dollars\n- la formule annuelle\n- la formule étudiante')).toContain('no_list');
    expect(checkReply('Le loyer est de 900 dollars par mois, charges comprises, et n’hésitez pas à me rappeler demain.')).toContain('no_closing_formula');
    expect(checkReply('En tant qu’intelligence artificielle, je ne peux pas visiter cet appartement mais le loyer est de 900 dollars.')).toContain('no_ai_mention');
    expect(checkReply('The rent is nine hundred dollars per month and you have to pay it on the first day of the month.')).toContain('french_only');
  });

  it('counts replies, violations with examples, the allowed §2.4 relance, and speaking first', () => {
    const m = new RuleMonitor();
    m.reply('Bonjour, je suis le propriétaire de l’appartement, et je vous écoute pour toutes vos questions aujourd’hui.', false);
    m.reply('Avez-vous d’autres questions ?', true);
    m.reply('Oui.', true);
    const r = m.report();
    expect(r.replies).toBe(3);
    expect(r.allowedRelance).toBe(1);
    expect(r.compliant).toBe(1);
    expect(r.rules.find((x) => x.rule === 'not_first_to_speak')).toMatchObject({ violations: 1 });
    expect(r.rules.find((x) => x.rule === 'length_15_25')).toMatchObject({ violations: 1, examples: ['Oui.'] });
    expect(r.rules.find((x) => x.rule === 'no_question')!.violations).toBe(0);
  });
});

describe('subjects API and CLI', () => {
  let env: T2Env | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('GET /api/sujets?tache=EO_T2 lists the 9 subjects without their fact sheets; other tasks are refused', async () => {
    env = await startT2();
    const res = await fetch(`${env.baseUrl}/api/sujets?tache=EO_T2`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { sujets: Array<Record<string, unknown>> };
    expect(body.sujets).toHaveLength(9);
    expect(body.sujets[0]).toEqual({ id: expect.any(String), titre: expect.any(String), consigne: expect.any(String), contexte: expect.any(String), role: expect.any(String), tache: 'EO_T2', mode: 'entrainement' });
    expect((await fetch(`${env.baseUrl}/api/sujets?tache=EE_T1`)).status).toBe(400);
    const page = await fetch(`${env.baseUrl}/t2/sujets/club-de-sport`);
    const html = await page.text();
    expect(html).toContain('Démarrer le dialogue');
    expect(html).not.toContain('49 dollars');
    expect((await fetch(`${env.baseUrl}/t2/sujets/..%2Fetc`)).status).toBe(404);
    for (const path of ['/t2/sujets/nulle-part', '/t2/seances/pas%20un%20identifiant']) {
      // A mistyped address is a page in the site's layout (lang, title, main landmark), not a line of text.
      const missing = await fetch(`${env.baseUrl}${path}`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toContain('text/html');
      const body = await missing.text();
      expect(body).toMatch(/<html lang="fr"/);
      expect(body).toContain('<main');
      expect(body).toContain('introuvable');
    }
    expect((await fetch(`${env.baseUrl}/t2/static/t2Pages.ts`)).status).toBe(404);
  });

  it('palabre sujets add validates the JSON file and adds the subject; list shows it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'palabre-sujets-'));
    const e = { DATA_DIR: dir, LOG_LEVEL: 'silent' };
    const good = join(dir, 'ok.json');
    writeFileSync(good, JSON.stringify({ id: 'pressing', titre: 'Pressing', consigne: 'Vous appelez un pressing pour faire nettoyer un costume avant un mariage.', contexte: 'Le mariage est samedi.', role: 'un employé de pressing', factSheet: [
      { theme: 'prix', keywords: ['prix', 'combien'], answer: 'Le nettoyage d’un costume complet coûte 28 dollars, et la chemise est repassée pour 5 dollars de plus.' },
      { theme: 'délai', keywords: ['quand', 'délai', 'prêt'], answer: 'Le costume est prêt en quarante-huit heures, ou le lendemain matin avec un supplément de 10 dollars.' },
      { theme: 'horaires', keywords: ['horaires', 'ouvert'], answer: 'Nous sommes ouverts du lundi au samedi de huit heures à dix-neuf heures, sans interruption le midi.' },
    ] }));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ titre: 'x', tache: 'EE_T1', factSheet: [] }));
    const a = io(e);
    expect(await sujets(['add', good], a.io)).toBe(0);
    expect(a.out()).toContain('added pressing');
    const b = io(e);
    expect(await sujets(['add', bad], b.io)).toBe(2);
    expect(b.err()).toMatch(/consigne/);
    expect(b.err()).toMatch(/tache/);
    expect(b.err()).toMatch(/factSheet/);
    const c = io(e);
    expect(await sujets(['list'], c.io)).toBe(0);
    expect(c.out().trim().split('\n')).toHaveLength(10);
    expect(await sujets(['add', join(dir, 'missing.json')], io(e).io)).toBe(1);
    expect(await sujets(['frobnicate'], io(e).io)).toBe(2);
  });
});
