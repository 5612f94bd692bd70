import { finding, isWritten, type Detector, type DetectorContext, type Finding } from './context.js';

/**
 * `faute_orthographe_courante` without Grammalecte: a compact list of frequent learner
 * misspellings of common words (each with its correction). With Grammalecte running, its own
 * dictionary (a compressed word graph in the Python sidecar) checks every word and this detector
 * is not used — see actors/corrections/checker.ts.
 *
 * Why not a full dictionary here: expanding the French Hunspell dictionary in Node (nspell) costs
 * ~15 s of CPU and a 1.25 GB memory peak; a list of frequent errors costs nothing and never flags a
 * correct word, a name or a rare plural.
 */
const COMMON_MISSPELLINGS: Readonly<Record<string, string>> = {
  apelle: 'appelle', apeller: 'appeler', apellé: 'appelé', aprés: 'après', aprendre: 'apprendre', apris: 'appris',
  tranquile: 'tranquille', biensur: 'bien sûr', bocoup: 'beaucoup', beaucoups: 'beaucoup', parcontre: 'par contre',
  malgrés: 'malgré', language: 'langage', exellent: 'excellent', excelent: 'excellent',
  interessant: 'intéressant', interessante: 'intéressante', interessants: 'intéressants', interessantes: 'intéressantes',
  différament: 'différemment', differament: 'différemment', evidement: 'évidemment', évidament: 'évidemment',
  mieu: 'mieux', plusieur: 'plusieurs', toujour: 'toujours', trés: 'très', tres: 'très', déja: 'déjà',
  deja: 'déjà', voila: 'voilà', ca: 'ça', francais: 'français', francaise: 'française',
  recoit: 'reçoit', recoivent: 'reçoivent', recu: 'reçu', recue: 'reçue', garcon: 'garçon', lecon: 'leçon', lecons: 'leçons',
  connaisez: 'connaissez', connaisance: 'connaissance', nécéssaire: 'nécessaire', necessaire: 'nécessaire', nécessaires: 'nécessaires',
  developper: 'développer', dévelopement: 'développement', developpement: 'développement', environement: 'environnement',
  gouvernment: 'gouvernement', governement: 'gouvernement', personel: 'personnel', personelle: 'personnelle',
  professionel: 'professionnel', professionelle: 'professionnelle', traditionel: 'traditionnel', traditionelle: 'traditionnelle',
  addresse: 'adresse', adress: 'adresse', appartment: 'appartement', apartement: 'appartement',
  problem: 'problème', sytème: 'système', systeme: 'système', bibliothéque: 'bibliothèque',
  pourai: 'pourrai', pourais: 'pourrais', pourait: 'pourrait', pourrier: 'pourriez', 
  envoyerai: 'enverrai', ramenerai: 'ramènerai', acceuil: 'accueil', acceuillir: 'accueillir', recueuillir: 'recueillir',
  gratuitment: 'gratuitement', vraiement: 'vraiment', vraimant: 'vraiment', seulment: 'seulement', egalement: 'également',
  economique: 'économique', ecole: 'école', etudiant: 'étudiant', etudiants: 'étudiants', eleve: 'élève', eleves: 'élèves',
  etre: 'être', tèlèphone: 'téléphone', telephone: 'téléphone', medecin: 'médecin', hopital: 'hôpital', hotel: 'hôtel',
  fenetre: 'fenêtre', foret: 'forêt', agée: 'âgée', agées: 'âgées', agé: 'âgé', agés: 'âgés', financieres: 'financières',
  financiere: 'financière', derniere: 'dernière', premiere: 'première', troisieme: 'troisième', deuxieme: 'deuxième',
  controle: 'contrôle', controler: 'contrôler', controlent: 'contrôlent', coute: 'coûte', coutent: 'coûtent',
  impressionant: 'impressionnant', impressionante: 'impressionnante', energetique: 'énergétique', énergetique: 'énergétique',
  delicieux: 'délicieux', delicieuse: 'délicieuse', celebrer: 'célébrer', fete: 'fête', fetes: 'fêtes', goutté: 'goûté', gouter: 'goûter',
  québecois: 'québécois', quebecois: 'québécois', québecoise: 'québécoise', magnifico: 'magnifique', responsabilite: 'responsabilité',
};

const norm = (w: string) => w.toLowerCase().replace(/’/g, "'");

export const orthographe: Detector = {
  name: 'orthographe',
  codes: ['faute_orthographe_courante'],
  applies: isWritten,
  detect(ctx: DetectorContext) {
    const out: Finding[] = [];
    for (const t of ctx.tokens) {
      const fix = COMMON_MISSPELLINGS[norm(t.text)];
      if (!fix || fix === norm(t.text)) continue;
      out.push(finding('orthographe', 'faute_orthographe_courante', ctx, t.start, t.end, `Orthographe : « ${fix} ».`));
    }
    return out;
  },
};
