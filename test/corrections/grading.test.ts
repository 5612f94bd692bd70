import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assembleReport } from '../../actors/corrections/assemble.js';
import type { TranscriptTurn } from '../../prompts/corrections/tasks.js';
import { runDetectors } from '../../actors/corrections/detectors/allDetectors.js';
import type { Production } from '../../prompts/corrections/tasks.js';
import { type OralModelOutput } from '../../prompts/corrections/modelOutput.js';
import { reportSchema } from '../../machines/correctionReport.js';
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
    expect(r.realisation).toMatchObject({ niveau: 'insuffisante', mesures: { mots: 14, questionsPertinentes: 1 } });
    expect(r.realisation!.plafond).toBeLessThanOrEqual(5);
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

  it('an off-task monologue stays at 5 or below; a complete exchange ranks far above both', () => {
    const mono = offline(oral(MONOLOGUE));
    expect(mono.realisation).toMatchObject({ niveau: 'hors_sujet', plafond: 5 });
    expect(mono.scoreGlobal).toBeLessThanOrEqual(5);
    expect(mono.realisation!.raison).toMatch(/^Vous avez surtout parlé de vous sans interroger votre interlocuteur/);
    const done = offline(oral(COMPLETE));
    expect(done.realisation).toMatchObject({ niveau: 'complete', plafond: null, raison: null });
    expect(done.realisation!.mesures).toMatchObject({ questionsPertinentes: 7, faitsObtenus: 6, faitsTotal: 6 });
    expect(done.scoreGlobal).toBeGreaterThanOrEqual(11);
    expect(done.scoreGlobal - mono.scoreGlobal).toBeGreaterThanOrEqual(6);
  });

  it('a fluent off-task monologue of 200 words stays at 5 or below, punctuated or not (speech recogniser)', () => {
    const said = [
      "Bonjour madame. Je voudrais d'abord vous expliquer ma situation, parce qu'elle est un peu particulière. Je suis arrivé à Montréal il y a six mois avec ma femme et nos deux enfants, qui vont maintenant à l'école du quartier.",
      "Avant, je travaillais comme ingénieur dans une entreprise de télécommunications à Lyon, où j'étais responsable d'une équipe de douze personnes. Ici, je cherche encore un poste qui corresponde à mon expérience, ce qui n'est pas simple, bien que mon diplôme soit reconnu. J'ai déjà envoyé une trentaine de candidatures et passé trois entretiens, dont un qui s'est très bien passé avec une société de Laval.",
      "Le week-end, nous nous promenons au parc du Mont-Royal, même lorsqu'il fait froid, et les enfants adorent patiner sur le lac. Ma femme, quant à elle, suit des cours d'anglais le soir afin de trouver plus facilement un emploi.",
      "Autrement dit, notre vie a beaucoup changé, mais nous sommes heureux d'être ici, même si la famille nous manque. Je pense que nous resterons longtemps, puisque les gens sont accueillants et que la ville nous plaît énormément. L'hiver dernier, nous avons même appris à faire du ski de fond avec des voisins très sympathiques.",
    ];
    for (const strip of [false, true]) {
      const text = (t: string) => (strip ? t.replace(/[.?!,]/g, '').toLowerCase() : t);
      const r = offline(oral(turns(I('Bonjour, club Énergie, je vous écoute.'), C(text(said[0]!)), I('Je vous écoute.'), C(text(said[1]!)), I('Oui ?'), C(text(said[2]!)), I('Je comprends.'), C(text(said[3]!))), false));
      expect(r.mots).toBeGreaterThanOrEqual(180);
      expect(r.realisation!.niveau, String(strip)).toBe('hors_sujet');
      expect(r.scoreGlobal, String(strip)).toBeLessThanOrEqual(5);
    }
  });

  it('two polished questions in about 50 words stay at 8 or below, with the reason', () => {
    const two = turns(
      I('Bonjour, club Énergie, je vous écoute.'),
      C("Bonjour madame, je souhaiterais m'inscrire dans votre club. Pourriez-vous m'indiquer le prix de l'abonnement mensuel, s'il vous plaît ?"), I(fact('tarifs')),
      C("Je vous remercie. Par ailleurs, jusqu'à quelle heure le club est-il ouvert en semaine, puisque je travaille tard ?"), I(fact('horaires')),
      C('Parfait, je vous remercie infiniment, au revoir.'),
    );
    for (const withSheet of [true, false]) {
      const r = offline(oral(two, withSheet));
      expect(r.mots).toBeLessThan(60);
      expect(r.scoreGlobal, String(withSheet)).toBeLessThanOrEqual(8);
      expect(['insuffisante', 'partielle']).toContain(r.realisation!.niveau);
      expect(oneSentence(r.realisation!.raison!), r.realisation!.raison!).toBe(true);
    }
  });

  it('questions off the subject (small talk) are not the task: capped at 5, with their own reason', () => {
    const chat = turns(
      I('Bonjour, club Énergie, je vous écoute.'),
      C('Bonjour ! Comment allez-vous ?'), I('Très bien, merci.'),
      C('Il fait beau chez vous ? Ici il neige depuis ce matin.'), I('Il fait assez froid ici aussi.'),
      C('Vous habitez où ? Vous êtes de Montréal ?'), I('Je suis là pour vous renseigner sur le club.'),
      C("Et qu'est-ce que vous faites le week-end ? Vous aimez le cinéma ?"), I('Je ne peux pas vous répondre sur ce sujet.'),
      C('Dommage ! Merci, bonne journée.'),
    );
    for (const withSheet of [true, false]) {
      const r = offline(oral(chat, withSheet));
      expect(r.realisation!.mesures).toMatchObject({ questionsPertinentes: 0 });
      expect(r.realisation!.niveau).toBe('hors_sujet');
      expect(r.scoreGlobal).toBeLessThanOrEqual(5);
      expect(r.realisation!.raison).toMatch(/questions hors sujet/);
    }
  });

  it('asking again for what was already obtained does not count as another question', () => {
    const again = turns(
      I('Bonjour, club Énergie, je vous écoute.'),
      C("Combien coûte l'abonnement ?"), I(fact('tarifs')),
      C("Pardon, combien coûte l'abonnement ?"), I(fact('tarifs')),
      C("Et l'abonnement, il coûte combien ?"), I(fact('tarifs')),
      C('Merci, au revoir.'),
    );
    for (const withSheet of [true, false]) {
      const r = offline(oral(again, withSheet));
      expect(r.realisation!.mesures, String(withSheet)).toMatchObject({ questionsPertinentes: 1 });
      expect(r.scoreGlobal).toBeLessThanOrEqual(5);
    }
  });

  it('a ceiling is a band: inside it the better production still scores higher, and below the top', () => {
    const weak = offline(oral(turns(I('Bonjour, club Énergie, je vous écoute.'), C('bonjour combien abonnement'), I(fact('tarifs')), C('ok merci'))));
    const polished = offline(oral(FOURTEEN));
    expect(weak.realisation!.niveau).toBe('insuffisante');
    expect(polished.scoreGlobal).toBeGreaterThan(weak.scoreGlobal);
    expect(polished.scoreGlobal).toBeLessThan(polished.realisation!.plafond!);
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

  it('a simple, correct text within the limits is a middle grade (under 14); a richer one scores higher', () => {
    const simple = offline(ee("Bonjour Monsieur,\nJe suis votre nouvelle voisine. J'habite au troisième étage. Je suis arrivée la semaine dernière. Je voudrais vous inviter à prendre un café chez moi. Je suis libre samedi. Vous pouvez venir à quinze heures. Je veux connaître mes voisins. Je fais un bon gâteau. Mon appartement est petit mais il est joli. Vous pouvez venir avec votre femme. Merci beaucoup.\nÀ bientôt,\nSamira"));
    expect(simple.realisation!.niveau).toBe('complete');
    expect(simple.scoreGlobal).toBeLessThan(14);
    const rich = offline(ee("Bonjour Monsieur Tremblay,\nComme je viens d'emménager au troisième étage, j'aimerais faire la connaissance de mes voisins, puisque nous partagerons désormais le même immeuble. Seriez-vous disponible samedi prochain, vers quinze heures, afin de prendre un café chez moi ? Bien que mon appartement soit encore encombré de cartons, je vous promets une tarte aux pommes maison, dont ma grand-mère m'a transmis la recette. Si ce jour ne vous convenait pas, n'hésitez pas à me proposer une autre date.\nAu plaisir de vous rencontrer,\nSamira"));
    expect(rich.realisation!.niveau).toBe('complete');
    expect(rich.scoreGlobal).toBeGreaterThan(simple.scoreGlobal);
  });

  it('task 3 that takes up only one of the two documents loses points on the task, and is told why', () => {
    const consigne3 = 'Vous écrivez un texte pour le forum d\u2019un journal. Présentez les deux points de vue des documents, puis donnez votre opinion.\n\nDocument 1\nLes trottinettes électriques réduisent la pollution et les embouteillages dans les grandes villes, selon une étude municipale récente.\n\nDocument 2\nLes piétons se plaignent des accidents causés par les trottinettes garées sur les trottoirs et des excès de vitesse.';
    const both = 'Le premier document affirme que les trottinettes électriques réduisent la pollution et les embouteillages. Le second rapporte que les piétons se plaignent des accidents et des trottinettes garées sur les trottoirs. ' + 'À mon avis, il faut les garder, mais avec des règles claires, des parkings réservés et des amendes pour les excès de vitesse. '.repeat(4);
    const one = 'Le premier document affirme que les trottinettes électriques réduisent la pollution et les embouteillages dans les villes. ' + 'À mon avis, il faut les garder, car elles sont pratiques et rapides pour aller travailler le matin sans voiture. '.repeat(6);
    const ee3 = (texte: string): Production => ({ epreuve: 'EE', tache: 'EE_T3', consigne: consigne3, texte });
    const r1 = offline(ee3(one));
    const r2 = offline(ee3(both));
    expect(r2.realisation!.mesures).toMatchObject({ documents: 2, documentsRepris: 2 });
    expect(r1.realisation!.mesures).toMatchObject({ documents: 2, documentsRepris: 1 });
    expect(r1.criteres.adequation_tache!.justification).toMatch(/deux documents/);
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
    expect(r.realisation).toMatchObject({ niveau: 'insuffisante' });
    expect(r.realisation!.plafond).toBeLessThanOrEqual(5);
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
