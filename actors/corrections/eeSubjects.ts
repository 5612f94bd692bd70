import { z } from 'zod';
import type { WrittenTask } from '../../prompts/corrections/tasks.js';
import { WORD_LIMITS } from './report.js';

/**
 * The written-practice subjects of the `/ee` page (docs/corrections.md § Written practice): three
 * per TCF Canada written task, in the exam's format. The consigne graded with a production is
 * `consigneText(subject)`: the instruction, and for task 3 its two documents, so that the grader
 * judges whether the text answers what was asked.
 */

export const eeSubjectSchema = z.object({
  id: z.string().regex(/^ee-t[123]-[a-z0-9-]+$/),
  tache: z.enum(['EE_T1', 'EE_T2', 'EE_T3']),
  titre: z.string().min(3).max(80),
  consigne: z.string().min(40).max(800),
  documents: z.array(z.object({ titre: z.string().min(3).max(120), texte: z.string().min(100).max(900) }).strict()).max(2).optional(),
}).strict();
export type EeSubject = z.infer<typeof eeSubjectSchema>;

export interface EeTask {
  tache: WrittenTask;
  titre: string;
  /** What the task asks, in one or two sentences for the candidate. */
  demande: string;
  mots: { min: number; max: number };
  /** Time the page's timer gives this task: the exam gives 60 minutes for the three. */
  minutes: number;
}

/** The three written tasks; the minutes split the exam's hour as candidates are advised to. */
export const EE_TASKS: readonly EeTask[] = [
  {
    tache: 'EE_T1',
    titre: 'Tâche 1 : un message',
    demande: 'Écrire un message court à un ou plusieurs destinataires (ami, voisin, collègue) pour inviter, informer, demander ou remercier, en donnant les précisions utiles.',
    mots: WORD_LIMITS.EE_T1,
    minutes: 10,
  },
  {
    tache: 'EE_T2',
    titre: 'Tâche 2 : un article, un courrier ou un billet de blog',
    demande: 'Raconter une expérience ou décrire une situation pour des lecteurs, et donner votre avis ou un conseil.',
    mots: WORD_LIMITS.EE_T2,
    minutes: 20,
  },
  {
    tache: 'EE_T3',
    titre: 'Tâche 3 : une argumentation à partir de deux documents',
    demande: 'Présenter les deux points de vue opposés de deux documents (40 à 60 mots), puis donner et défendre votre opinion sur le thème (80 à 120 mots).',
    mots: WORD_LIMITS.EE_T3,
    minutes: 30,
  },
];

const T3_CONSIGNE = (theme: string): string =>
  `Vous écrivez un texte pour le forum d’un journal sur le thème « ${theme} ». Dans une première partie (40 à 60 mots), présentez les deux points de vue des documents. Dans une seconde partie (80 à 120 mots), donnez votre opinion et justifiez-la par des arguments et des exemples.`;

export const EE_SUBJECTS: readonly EeSubject[] = [
  {
    id: 'ee-t1-fete-anniversaire',
    tache: 'EE_T1',
    titre: 'Inviter des amis à une fête',
    consigne: 'Vous organisez une fête pour l’anniversaire d’un ami commun. Écrivez un message à vos amis pour les inviter : indiquez la date, le lieu et le programme, dites ce que chacun peut apporter et demandez une réponse.',
  },
  {
    id: 'ee-t1-travaux-voisins',
    tache: 'EE_T1',
    titre: 'Prévenir ses voisins de travaux',
    consigne: 'Vous allez faire des travaux dans votre appartement. Écrivez un message à vos voisins pour les prévenir : expliquez les travaux, donnez les dates et les horaires, excusez-vous pour le bruit et laissez un moyen de vous joindre.',
  },
  {
    id: 'ee-t1-cours-absence',
    tache: 'EE_T1',
    titre: 'Prévenir un professeur d’une absence',
    consigne: 'Vous suivez un cours du soir de cuisine, mais vous ne pourrez pas venir au cours de jeudi prochain. Écrivez un message au professeur pour l’informer, expliquer la raison de votre absence et lui demander comment rattraper le cours.',
  },
  {
    id: 'ee-t2-nouvelle-ville',
    tache: 'EE_T2',
    titre: 'Ma première semaine dans une nouvelle ville',
    consigne: 'Vous venez de vous installer dans une nouvelle ville. Sur votre blog, racontez votre première semaine : ce qui vous a plu, ce qui a été difficile, et donnez un conseil aux lecteurs qui vont bientôt déménager.',
  },
  {
    id: 'ee-t2-benevolat',
    tache: 'EE_T2',
    titre: 'Une expérience de bénévolat',
    consigne: 'Le journal de votre quartier publie des témoignages sur le bénévolat. Écrivez un article pour raconter une expérience de bénévolat, la vôtre ou celle d’un proche, et dites ce qu’elle vous a apporté.',
  },
  {
    id: 'ee-t2-transports',
    tache: 'EE_T2',
    titre: 'Les transports en commun de ma ville',
    consigne: 'Le site d’information de votre ville demande l’avis des habitants sur les transports en commun. Écrivez un courrier pour décrire votre expérience quotidienne et proposer une amélioration concrète.',
  },
  {
    id: 'ee-t3-teletravail',
    tache: 'EE_T3',
    titre: 'Le télétravail',
    consigne: T3_CONSIGNE('Le télétravail : un progrès pour les salariés ?'),
    documents: [
      {
        titre: 'Document 1 : « Travailler chez soi, une liberté retrouvée »',
        texte: 'Depuis qu’elle travaille trois jours par semaine depuis son domicile, Claire ne perd plus deux heures par jour dans les transports. Elle organise ses journées comme elle l’entend, dort davantage et voit ses enfants à la sortie de l’école. Selon plusieurs enquêtes, les salariés en télétravail se disent moins stressés et plus efficaces, car ils sont moins dérangés que dans un bureau ouvert.',
      },
      {
        titre: 'Document 2 : « Le bureau, un lieu qui nous manque »',
        texte: 'Pour Marc, le télétravail a vite tourné à l’isolement. Sans collègues autour de lui, il a perdu les échanges informels qui l’aidaient à résoudre les problèmes et à apprendre. La frontière entre vie professionnelle et vie privée a disparu : il répond à ses courriels le soir et le week-end. Des psychologues observent que les jeunes salariés, surtout, ont besoin du contact quotidien avec leur équipe.',
      },
    ],
  },
  {
    id: 'ee-t3-voitures-centre-ville',
    tache: 'EE_T3',
    titre: 'Les voitures en centre-ville',
    consigne: T3_CONSIGNE('Faut-il interdire les voitures dans le centre des villes ?'),
    documents: [
      {
        titre: 'Document 1 : « Des rues rendues aux habitants »',
        texte: 'Depuis que le centre de Pontevedra est fermé aux voitures, l’air y est plus propre, le bruit a fortement diminué et les accidents graves ont presque disparu. Les familles se promènent à pied, les enfants jouent dans les rues et les petits commerces ont retrouvé des clients. Pour ses partisans, une ville sans voitures est plus agréable et meilleure pour la santé de tous.',
      },
      {
        titre: 'Document 2 : « Une mesure qui oublie une partie des habitants »',
        texte: 'Les commerçants du centre craignent de perdre les clients qui viennent de la banlieue, mal desservie par les transports en commun. Les personnes âgées ou handicapées, les artisans qui transportent leur matériel et les parents qui travaillent loin dépendent de leur voiture. Selon une association d’usagers, interdire la voiture sans offrir d’autres solutions pénalise d’abord ceux qui n’ont pas le choix.',
      },
    ],
  },
  {
    id: 'ee-t3-ecrans-ecole',
    tache: 'EE_T3',
    titre: 'Les écrans à l’école',
    consigne: T3_CONSIGNE('Les tablettes et les ordinateurs ont-ils leur place à l’école ?'),
    documents: [
      {
        titre: 'Document 1 : « Le numérique, un outil pour mieux apprendre »',
        texte: 'Dans une école de Laval, chaque élève dispose d’une tablette. Les enseignants y voient un moyen d’adapter les exercices au rythme de chacun, de rendre les cours plus vivants avec des vidéos et d’apprendre aux enfants à chercher et trier l’information. Pour eux, l’école doit préparer les élèves à un monde où le numérique est partout, y compris dans le travail.',
      },
      {
        titre: 'Document 2 : « Apprendre d’abord sans écran »',
        texte: 'Plusieurs chercheurs rappellent que les enfants passent déjà de longues heures devant des écrans à la maison. En classe, les tablettes dispersent leur attention : notifications, jeux et vidéos les éloignent de la leçon. Des études montrent aussi que l’on retient mieux ce que l’on écrit à la main. Certains pays, comme la Suède, reviennent d’ailleurs aux manuels papier dans les petites classes.',
      },
    ],
  },
];

export function eeTask(tache: WrittenTask): EeTask {
  const t = EE_TASKS.find((x) => x.tache === tache);
  if (!t) throw new Error(`unknown written task ${tache}`);
  return t;
}

/** The instruction graded with a production: the consigne, then task 3's documents. */
export function consigneText(s: EeSubject): string {
  const docs = (s.documents ?? []).map((d) => `${d.titre}\n${d.texte}`);
  return [s.consigne, ...docs].join('\n\n');
}

/**
 * Below this many words a production is refused rather than graded (422 too_short): too little to
 * judge a language level, whatever the task. Between it and the task's minimum, the production is
 * graded and the report says it is too short.
 */
export const EE_MIN_WORDS_TO_GRADE = 20;
