import { fold } from '../../machines/textFold.js';
import { stem } from './stem.js';

/**
 * A small French ↔ English glossary of software and protocol words, for a bilingual corpus
 * searched without embeddings: a French question on English pages (or the reverse) also looks for
 * the other language's word. Kept short and generic (protocols, web, data protection); with
 * EMBEDDINGS_PROVIDER set, the dense ranker does this job for any word.
 * Each entry: French words = English words (first of each side is the usual form).
 */
const PAIRS: Array<[string, string]> = [
  ['requête requêtes demande', 'request requests'],
  ['réponse réponses', 'response responses reply'],
  ['annuler annulation annulée abandonner abandonnée abandon', 'cancel cancelled cancellation abort'],
  ['erreur erreurs', 'error errors'],
  ['introuvable', 'not found notfound missing'],
  ['ressource ressources', 'resource resources'],
  ['outil outils', 'tool tools'],
  ['serveur serveurs', 'server servers'],
  ['client clients', 'client clients'],
  ['jeton jetons', 'token tokens'],
  ['autorisation', 'authorization'],
  ['authentification', 'authentication'],
  ['envoyer envoyée envoi', 'send sent'],
  ['signaler notifier notification', 'notify notification notifications'],
  ['progression avancement', 'progress'],
  ['délai expiration', 'timeout deadline'],
  ['message messages', 'message messages'],
  ['invite invites', 'prompt prompts'],
  ['échantillonnage', 'sampling'],
  ['journalisation journal', 'logging log'],
  ['pagination', 'pagination cursor'],
  ['racine racines', 'root roots'],
  ['sécurité', 'security'],
  ['chiffrement chiffrer', 'encryption encrypt'],
  ['mot de passe', 'password'],
  ['transport transports', 'transport transports'],
  ['flux', 'stream streaming'],
  ['connexion', 'connection'],
  ['cycle de vie', 'lifecycle'],
  ['version versions', 'version versioning'],
  ['capacité capacités', 'capability capabilities'],
  ['schéma', 'schema'],
  ['type types', 'type types'],
  ['chaîne', 'string'],
  ['entier', 'integer'],
  ['paramètre paramètres', 'parameter parameters'],
  ['en-tête', 'header'],
  ['donnée données', 'data'],
  ['utilisateur utilisateurs', 'user users'],
  ['consentement', 'consent'],
  ['accessibilité', 'accessibility'],
  // Data protection, web and accessibility vocabulary (the French guides are read by English speakers too).
  ['personnel personnelles personnelle', 'personal'],
  ['conserver conservation garder', 'keep retain retention store'],
  ['durée', 'duration period long'],
  ['supprimer suppression effacer effacement', 'delete deletion erase erasure remove'],
  ['journaux journalisation', 'logs log logging'],
  ['fichier fichiers', 'file files'],
  ['sauvegarde sauvegardes', 'backup backups'],
  ['essai tests test recette', 'test tests testing'],
  ['fictives fictif', 'fake dummy synthetic'],
  ['réelles réel', 'real'],
  ['entreprise entreprises société', 'company companies business'],
  ['chiffre affaires', 'turnover revenue'],
  ['site sites', 'website websites site'],
  ['page pages', 'page pages'],
  ['déclaration', 'statement declaration'],
  ['conformité conforme', 'compliance compliant conformity conformance'],
  ['critère critères', 'criterion criteria'],
  ['obligation obligations obligatoire', 'obligation obligations mandatory required'],
  ['exemption exemptés exemptée dérogation', 'exemption exempt exempted'],
  ['navigateur navigateurs', 'browser browsers'],
  ['mobile mobiles', 'mobile'],
  ['étiquette étiquettes', 'label labels'],
  ['champ champs formulaire formulaires', 'field fields form forms'],
  ['tableau tableaux', 'table tables'],
  ['raccourci raccourcis clavier', 'shortcut shortcuts keyboard'],
  ['contraste', 'contrast'],
  ['image images', 'image images picture'],
  ['titre titres', 'title titles heading headings'],
  ['hébergement hébergeur héberger', 'hosting host hosts hosted'],
  ['publication', 'publication publishing'],
  ['pluriannuel', 'multiyear multi year'],
  ['audit audits', 'audit audits'],
  ['échantillon', 'sample sampling'],
  ['taux', 'rate'],
  ['droit droits', 'right rights'],
  ['accès', 'access'],
  ['portabilité', 'portability'],
  ['limitation', 'restriction'],
  ['opposition', 'objection object'],
  ['traceur traceurs cookie cookies', 'tracker trackers cookie cookies'],
  ['mesure audience fréquentation', 'analytics audience measurement'],
  ['publicité publicitaire', 'advertising ads ad'],
  ['ciblage ciblée', 'targeting targeted'],
  ['bandeau', 'banner'],
  ['refuser refus', 'refuse refusal reject'],
  ['accepter acceptation', 'accept acceptance'],
  ['sensible sensibles', 'sensitive'],
  ['santé', 'health medical'],
  ['anonymisation anonyme anonymiser', 'anonymisation anonymization anonymous anonymise'],
  ['pseudonymisation', 'pseudonymisation pseudonymization'],
  ['sous-traitant prestataire', 'processor provider vendor'],
  ['transfert transferts', 'transfer transfers'],
  ['violation fuite', 'breach leak'],
  ['informer information', 'inform information notice'],
  ['attaque attaques', 'attack attacks'],
  ['identifiant identifiants', 'credential credentials login identifier'],
  ['compte comptes', 'account accounts'],
  ['habilitation habilitations profil profils', 'permission permissions role roles profile'],
  ['administrateur administrateurs', 'administrator administrators admin'],
  ['bibliothèque bibliothèques dépendance dépendances', 'library libraries dependency dependencies'],
  ['vulnérabilité vulnérabilités', 'vulnerability vulnerabilities'],
  ['clé clés', 'key keys'],
  ['dépôt dépôts', 'repository repositories repo'],
  ['secret secrets', 'secret secrets'],
  ['documentation', 'documentation docs'],
  ['commentaires', 'comments'],
  ['naissance', 'birth'],
  ['collecter collecte', 'collect collection'],
  ['minimiser minimisation', 'minimise minimize minimisation'],
  ['géolocalisation localisation', 'geolocation location'],
  ['conception', 'design'],
  ['enceinte enceintes', 'speaker speakers'],
  ['écran', 'screen'],
  ['personne personnes', 'person people individuals'],
  ['salarié salariés', 'employee employees'],
  ['paie', 'payroll'],
  ['prospect prospects', 'prospect prospects lead'],
  ['archivage archivées archive', 'archive archived archiving'],
  ['colonne colonnes', 'column columns'],
  ['ligne lignes', 'row rows line lines'],
  // Abbreviations people type for the words the guides spell out.
  ['production prod', 'production prod'],
  ['développement dev', 'development dev'],
  ['application appli', 'application app'],
];

/**
 * Two-word terms, French noun first and English modifier first, so they are paired word by word in
 * reverse order (dossier ↔ record, médical ↔ medical). Listing them as PAIRS would pair every word
 * with every word: « médical » alone then matched « record » and even « dossier » — a question on
 * medical files was answered "high" from a passage on T2 recordings (docs/docs-assistant.md).
 */
const PHRASES: Array<[string, string]> = [
  ['lecteur écran', 'screen reader'],
  ['base légale', 'legal basis'],
  ['intérêt légitime', 'legitimate interest'],
  ['force brute', 'brute force'],
  ['analyse impact', 'impact assessment'],
  ['code source', 'source code'],
  ['dossier médical', 'medical record'],
];

function stems(words: string, lang: 'fr' | 'en'): string[] {
  return fold(words)
    .split(/\s+/)
    .filter((w) => w.length > 1)
    .map((w) => stem(w, lang));
}

/** stem (either language) → stems of the other language's words; built on first use. */
let expansions: ReadonlyMap<string, string[]> | undefined;
const build = (): ReadonlyMap<string, string[]> => {
  const m = new Map<string, Set<string>>();
  const add = (keys: string[], values: string[]): void => {
    for (const k of keys) {
      const set = m.get(k) ?? new Set<string>();
      for (const v of values) if (v !== k) set.add(v);
      m.set(k, set);
    }
  };
  for (const [fr, en] of PAIRS) {
    const frStems = stems(fr, 'fr');
    const enStems = stems(en, 'en');
    add(frStems, enStems);
    add(enStems, frStems);
  }
  for (const [fr, en] of PHRASES) {
    const frStems = stems(fr, 'fr');
    const enStems = stems(en, 'en').reverse();
    frStems.forEach((f, i) => {
      add([f], [enStems[i]!]);
      add([enStems[i]!], [f]);
    });
  }
  return new Map([...m].map(([k, v]) => [k, [...v]]));
};

/** Translations (as stems) of the stems given; empty when the glossary has none. */
/** Switch for bench/rag-quality.ts (`--glossary off`), to measure the dictionaries without it. */
export const glossaryUse = { on: true };

export function translate(stemsOfWord: string[]): string[] {
  if (!glossaryUse.on) return [];
  expansions ??= build();
  const out = new Set<string>();
  for (const s of stemsOfWord) for (const t of expansions.get(s) ?? []) out.add(t);
  return [...out];
}
