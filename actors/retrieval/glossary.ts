import { fold, stem } from './analyze.js';

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
];

function stems(words: string, lang: 'fr' | 'en'): string[] {
  return fold(words)
    .split(/\s+/)
    .filter((w) => w.length > 1)
    .map((w) => stem(w, lang));
}

/** stem (either language) → stems of the other language's words; built on first use (analyze.ts imports us). */
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
  return new Map([...m].map(([k, v]) => [k, [...v]]));
};

/** Translations (as stems) of the stems given; empty when the glossary has none. */
export function translate(stemsOfWord: string[]): string[] {
  expansions ??= build();
  const out = new Set<string>();
  for (const s of stemsOfWord) for (const t of expansions.get(s) ?? []) out.add(t);
  return [...out];
}
