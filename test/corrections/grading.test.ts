import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assembleReport } from '../../actors/corrections/assemble.js';
import type { TranscriptTurn } from '../../actors/corrections/contract.js';
import { runDetectors } from '../../actors/corrections/detectors/index.js';
import type { Production } from '../../actors/corrections/production.js';
import { reportSchema, type OralModelOutput } from '../../actors/corrections/report.js';
import { createCorrectionService } from '../../actors/corrections/service.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openaiFake.js';
import { makeContext } from './support.js';

/**
 * Grades follow the task: a production that does not do it stays in the lowest bands, with or
 * without a model, and says why in one sentence; justifications are feedback, figures are details.
 */

const club = SEED_SUBJECTS.find((s) => s.id === 'club-de-sport')!;
const sujet = { titre: club.titre, contexte: club.contexte, faits: club.factSheet.map((f) => ({ theme: f.theme, keywords: f.keywords, answer: f.answer })) };
const fact = (theme: string) => club.factSheet.find((f) => f.theme === theme)!.answer;

const turns = (...pairs: Array<[TranscriptTurn['speaker'], string]>): TranscriptTurn[] => pairs.map(([speaker, text], i) => ({ speaker, text, atMs: i * 9_000 }));
const C = (text: string): [TranscriptTurn['speaker'], string] => ['candidate', text];
const I = (text: string): [TranscriptTurn['speaker'], string] => ['interlocutor', text];

/** A T2 session where the candidate said 14 words: a greeting and one question, then nothing. */
const FOURTEEN = turns(I('Bonjour, club Énergie, je vous écoute.'), C("Bonjour monsieur, je voudrais savoir combien coûte l'abonnement de votre club, s'il vous plaît."), I(fact('tarifs')));
/** A complete exchange at B2: questions on every point, follow-ups, reformulations. */
const COMPLETE = turns(
  I('Bonjour, club Énergie, je vous écoute.'),
  C("Bonjour, je voudrais m'inscrire dans un club près de chez moi et j'aimerais connaître vos conditions avant de choisir une formule."),
  I('Je vous écoute.'),
  C("Quel est le prix de l'abonnement, et y a-t-il une différence entre le mensuel et l'annuel ?"), I(fact('tarifs')),
  C("Donc l'annuel est plus intéressant si je reste toute l'année. Il y a aussi des frais d'inscription ?"), I(fact('frais d’inscription')),
  C("D'accord. Comme je travaille en horaires décalés, j'aimerais savoir jusqu'à quelle heure le club est ouvert."), I(fact('horaires')),
  C("Vingt-trois heures en semaine, c'est parfait pour moi. J'aimerais aussi nager : la piscine est-elle comprise ?"), I(fact('piscine')),
  C("Et les cours collectifs, comment est-ce qu'on s'inscrit ?"), I(fact('cours collectifs')),
  C("Par l'application, c'est pratique. Est-ce que je peux faire un essai avant de m'inscrire ?"), I(fact('essai')),
  C('Très bien, je passerai demain avec ma carte d\'identité. Merci beaucoup.'),
);
/** The candidate talks about themselves and never asks. */
const MONOLOGUE = turns(
  I('Bonjour, club Énergie, je vous écoute.'),
  C("Bonjour. Je m'appelle Karim, j'ai trente-deux ans et je suis arrivé au Canada il y a un an. Avant j'habitais à Casablanca avec ma famille."),
  I('Je vous écoute.'),
  C("J'aime beaucoup le sport, surtout le football. Quand j'étais jeune, je jouais chaque week-end avec mes amis. Maintenant je travaille beaucoup et je suis fatigué."),
  I('Je comprends.'),
  C("Ma femme dit que je dois faire du sport pour ma santé parce que j'ai mal au dos. Voilà, merci."),
);

const oral = (transcript: TranscriptTurn[], withSheet = true): Extract<Production, { epreuve: 'EO' }> => ({ epreuve: 'EO', tache: 'EO_T2', consigne: club.consigne, transcript, ...(withSheet ? { sujet } : {}) });
const offline = (p: Production) => assembleReport({ production: p, findings: runDetectors(p), fallback: { reason: 'offline_provider' } });

/** One sentence: a single final full stop, no other sentence end outside parentheses and quotes. */
const oneSentence = (s: string) => /^[A-ZÀ-Ý]/.test(s) && s.endsWith('.') && s.slice(0, -1).replace(/\([^)]*\)|«[^»]*»/g, '').search(/[.!?](\s|$)/) === -1;
const FORMULA = /[=×]|pour 100 mots|gravité|densité|Guiraud|\d,\d/;

describe('offline oral grades follow the task (T2)', () => {
  it('a 14-word production scores in the lowest bands, and one plain sentence says why', () => {
    const r = offline(oral(FOURTEEN));
    expect(r.mots).toBe(14);
    expect(r.scoreGlobal).toBeLessThanOrEqual(5);
    expect(['<4', '4']).toContain(r.nclc.niveau);
    expect(r.realisation).toMatchObject({ niveau: 'insuffisante', plafond: 5, mesures: { mots: 14, questionsPertinentes: 1 } });
    const why = r.realisation!.raison!;
    expect(oneSentence(why), why).toBe(true);
    expect(why).toMatch(/^Vous n'avez posé qu'une question sur le sujet et prononcé 14 mots/);
    // Nothing praised for the absence of errors in 14 words.
    expect(r.pointsForts.join(' ')).not.toMatch(/Connecteurs variés|Pas d'anglicisme/);
    expect(r.conseils[0]).toMatch(/Posez une dizaine de questions/);
    expect(r.avertissements).toContain(why);
    // Without the fact sheet (the HTTP API), the same ceiling.
    expect(offline(oral(FOURTEEN, false)).scoreGlobal).toBeLessThanOrEqual(5);
  });

  it('an off-task monologue stays at 8 or below; a complete exchange ranks far above both', () => {
    const mono = offline(oral(MONOLOGUE));
    expect(mono.realisation).toMatchObject({ niveau: 'hors_sujet', plafond: 8 });
    expect(mono.scoreGlobal).toBeLessThanOrEqual(8);
    expect(mono.realisation!.raison).toMatch(/sans interroger votre interlocuteur/);
    const done = offline(oral(COMPLETE));
    expect(done.realisation).toMatchObject({ niveau: 'complete', plafond: null, raison: null });
    expect(done.realisation!.mesures).toMatchObject({ questionsPertinentes: 7, faitsObtenus: 6, faitsTotal: 6 });
    expect(done.scoreGlobal).toBeGreaterThanOrEqual(11);
    expect(done.scoreGlobal - mono.scoreGlobal).toBeGreaterThanOrEqual(4);
  });

  it('justifications are French feedback without the formula; the figures are in details', () => {
    for (const p of [oral(FOURTEEN), oral(COMPLETE), oral(MONOLOGUE)]) {
      const r = offline(p);
      for (const [id, c] of Object.entries(r.criteres)) {
        if (!c.evalue) continue;
        expect(c.justification, id).not.toMatch(FORMULA);
        expect(c.justification, id).toMatch(/^[A-ZÀ-Ý].*\.$/s);
        expect(c.justification, id).toMatch(/\b(?:vous|votre|vos)\b/i);
        expect(c.details!.some((d) => d.startsWith('note = ')), id).toBe(true);
        expect(c.details!.join(' '), id).toMatch(/questions sur le sujet : \d+/);
      }
    }
  });
});

describe('offline written grades: length and instruction ceilings', () => {
  const consigne = "Vous venez d'emménager. Écrivez un message à votre voisin pour l'inviter à prendre un café chez vous (date, heure, raison).";
  const ee = (texte: string): Production => ({ epreuve: 'EE', tache: 'EE_T1', consigne, texte });

  it('a few lines: at most 5, with the reason; under the minimum: at most 10', () => {
    const few = offline(ee('Bonjour Monsieur,\nJe vous invite pour un café samedi.\nMerci.'));
    expect(few.scoreGlobal).toBeLessThanOrEqual(5);
    expect(few.realisation).toMatchObject({ niveau: 'insuffisante', plafond: 5 });
    expect(oneSentence(few.realisation!.raison!), few.realisation!.raison!).toBe(true);
    expect(few.criteres.adequation_tache!.justification).toMatch(/trop court \(\d+ mots pour un minimum de 60\)/);
    const under = offline(ee("Bonjour Monsieur Tremblay,\nJe suis votre nouvelle voisine du troisième étage. Je voudrais vous inviter à prendre un café chez nous samedi prochain, vers quinze heures, pour faire connaissance. Dites-moi si vous êtes disponible.\nAu plaisir,\nSamira"));
    expect(under.mots).toBeGreaterThanOrEqual(30);
    expect(under.mots).toBeLessThan(60);
    expect(under.realisation).toMatchObject({ niveau: 'partielle', plafond: 10 });
    expect(under.scoreGlobal).toBeLessThanOrEqual(10);
  });

  it('a text that never takes up the instruction is capped at 6', () => {
    const off = offline(ee("Bonjour,\nLe Canada est un très grand pays avec beaucoup de nature. Il y a des lacs, des forêts et des montagnes. En hiver il fait très froid et il neige beaucoup, mais en été il fait chaud. Les Canadiens sont gentils et ils parlent anglais et français. J'aime beaucoup le hockey et le sirop d'érable. Ma ville préférée est Vancouver parce que la mer est belle.\nAu revoir"));
    expect(off.realisation).toMatchObject({ niveau: 'hors_sujet', plafond: 6 });
    expect(off.scoreGlobal).toBeLessThanOrEqual(6);
    expect(off.criteres.adequation_tache!.justification).toMatch(/ne traite pas ce que demande la consigne/);
  });

  it('a report stored before details and task completion existed still reads', () => {
    const old = offline(ee('Bonjour Monsieur,\nJe vous invite pour un café samedi.\nMerci.')) as Record<string, unknown> & { criteres: Record<string, Record<string, unknown>> };
    delete old.realisation;
    for (const c of Object.values(old.criteres)) delete c.details;
    expect(reportSchema.safeParse(old).success).toBe(true);
  });
});

function oralAnswer(score: number): OralModelOutput {
  return {
    criteres: {
      coherence_cohesion: { score, justification: 'Échange fluide et bien mené.' },
      lexique: { score, justification: 'Lexique précis.' },
      morphosyntaxe: { score, justification: 'Structures maîtrisées.' },
    },
    erreurs: [],
    points_forts: ['Politesse'],
    conseils: ['Posez plus de questions.', 'Reformulez les réponses.', 'Variez les structures.'],
  };
}

describe('with a model (OpenAI SDK against the wire fake): the ceiling holds', () => {
  let fake: OpenAIFake;
  let env: ReturnType<typeof makeContext> | undefined;
  beforeAll(async () => {
    fake = await startOpenAIFake();
  });
  afterAll(() => fake.close());
  afterEach(() => {
    fake.reset();
    env?.close();
    env = undefined;
  });
  const start = () => {
    env = makeContext({ OPENAI_API_KEY: 'sk-test-grading', OPENAI_BASE_URL: `${fake.url}/v1`, CORRECTION_PROVIDER: 'openai', CORRECTION_MODEL: 'deepseek-chat' });
    return createCorrectionService(env.ctx);
  };

  it('a model saying 18/20 cannot lift the 14-word production out of the lowest bands; the prompt asks for task completion', async () => {
    const service = start();
    fake.script({ text: JSON.stringify(oralAnswer(18)) });
    const out = await service.correctOral({ candidateId: 'c-ceiling', tache: 'EO_T2', consigne: club.consigne, transcript: FOURTEEN, sujet });
    const r = reportSchema.parse(out.report);
    expect(r).toMatchObject({ source: 'model', detectorsOnly: false });
    expect(r.scoreGlobal).toBeLessThanOrEqual(5);
    for (const c of Object.values(r.criteres)) expect(c.score).toBeLessThanOrEqual(5);
    expect(r.criteres.lexique!.justification).toBe('Lexique précis.');
    expect(r.realisation).toMatchObject({ niveau: 'insuffisante', plafond: 5 });
    expect(r.avertissements[0]).toBe(r.realisation!.raison);
    const body = fake.requests[0]!.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages[0]!.content).toContain('Réalisation de la tâche');
    expect(body.messages[0]!.content).toMatch(/questions pertinentes/);
    expect(body.messages.at(-1)!.content).toContain(fact('piscine'));
    expect((await service.store.get(out.productionId))!.report).toEqual(r);
  });

  it('a complete exchange keeps the model\'s marks (no ceiling) with the task figures as details', async () => {
    const service = start();
    fake.script({ text: JSON.stringify(oralAnswer(16)) });
    const out = await service.correctOral({ candidateId: 'c-done', tache: 'EO_T2', consigne: club.consigne, transcript: COMPLETE, sujet });
    const r = reportSchema.parse(out.report);
    expect(r.source).toBe('model');
    expect(r.scoreGlobal).toBe(16);
    expect(r.realisation).toMatchObject({ niveau: 'complete', plafond: null });
    expect(r.criteres.coherence_cohesion!.details!.join(' ')).toMatch(/informations obtenues : 6 sur 6/);
  });
});
