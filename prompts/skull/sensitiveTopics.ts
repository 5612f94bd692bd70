/**
 * Soft policy of the Skull (docs/skull.md#what-happens-to-an-input, step 5): politics, health, money and personal data
 * detected in the user's *input* get a polite redirect without calling the model.
 *
 * Matching works on a folded form of the text (lower case, accents removed, apostrophes and
 * hyphens as spaces) with whole-word boundaries, so inflections are listed explicitly and
 * neighbours do not match: "argent" and "l'argent" match, "argentine" and "argenterie" do not.
 */

export type SensitiveTopic = 'politique' | 'sante' | 'argent' | 'donnees_personnelles';

export const REDIRECT_TEXT = 'Sujet sensible, changeons de thème amusant !';

/** Lower case, no diacritics, apostrophes/hyphens/punctuation → single spaces. */
export function fold(text: string): string {
  return ` ${text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9@.+]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()} `;
}

/** Whole-word alternatives on the folded text (each wrapped in spaces at match time). */
const WORDS: Record<SensitiveTopic, string[]> = {
  politique: [
    'politiques?', 'politiciens?', 'politiciennes?', 'elections?', 'electora(?:l|le|les|ux)', 'electeurs?', 'electrices?',
    'vot(?:e|es|er|ez|ons|ent|ait|ais|aient|ant|ee|ees|erai|erais|era)', 'scrutins?', 'referendums?',
    'gouvernements?', 'gouvernementa(?:l|le|les|ux)', 'ministres?', 'ministeres?', 'deputes?', 'deputees?', 'senat(?:eur|eurs|rice|rices)?',
    'presidentielles?', 'legislatives?', 'partis? politiques?',
    'extreme (?:droite|gauche)', 'macron', 'le pen', 'melenchon', 'zemmour', 'bardella', 'trump', 'biden', 'poutine', 'putin',
    'syndicats?', 'manifs?', 'manifestations?', 'greves?', 'immigration', 'migrants?', 'ideologies?',
  ],
  sante: [
    'sante', 'maladies?', 'malades?', 'medecins?', 'medicaments?', 'medica(?:l|le|les|ux)', 'docteurs?', 'symptomes?',
    'cancers?', 'tumeurs?', 'diagnostics?', 'diagnostiquer', 'hopita(?:l|ux)', 'urgences', 'vaccins?', 'vaccin(?:er|e|es|ation|ations)',
    'depressions?', 'deprime(?:e|s|es)?', 'covid(?: 19)?', 'grippe', 'diabetes?', 'therapies?', 'therapeutes?',
    'psychiatres?', 'psychologues?', 'pilules?', 'ordonnances?', 'douleurs?', 'blessures?', 'fievre', 'chirurgies?',
    'traitements? medica(?:l|ux)', 'regime (?:alimentaire|amaigrissant)', 'suicides?', 'suicid(?:er|aire|aires)',
  ],
  argent: [
    'argent', 'fric', 'thunes?', 'pognon', 'oseille', 'banques?', 'bancaires?', 'banquiers?', 'credits?', 'emprunts?',
    'emprunt(?:er|e|es)', 'prets? (?:immobiliers?|bancaires?)', 'salaires?', 'impots?', 'taxes?', 'fisc(?:al|ale|aux)?',
    'invest(?:ir|is|it|issement|issements|isseurs?)', 'bourse', 'actions en bourse', 'cryptos?', 'cryptomonnaies?', 'bitcoins?',
    'euros?', 'dollars?', 'dettes?', 'endett(?:er|e|ee|es|ement)', 'epargnes?', 'epargn(?:er|e)', 'placements? financiers?',
    'finances?', 'financi(?:er|ere|ers|eres)', 'riches(?:se|ses)?', 'fortune', 'loyers?', 'hypotheques?', 'assurance vie',
  ],
  donnees_personnelles: [
    'mots? de passe', 'passwords?', 'codes? (?:secrets?|pin|confidentiels?)', 'numeros? de (?:telephone|carte|securite sociale|compte|passeport)',
    'securite sociale', 'carte (?:bancaire|bleue|vitale|d identite)', 'iban', 'rib', 'date de naissance', 'adresse (?:postale|mail|e mail|email|ip)',
    'mon adresse', 'ton adresse', 'donnees (?:personnelles|perso)', 'coordonnees', 'e mail', 'email', 'courriel',
  ],
};

const TOPIC_RES: Array<[SensitiveTopic, RegExp]> = (Object.keys(WORDS) as SensitiveTopic[]).map((topic) => [
  topic,
  new RegExp(` (?:${WORDS[topic].join('|')}) `),
]);

/** Any topic's words: one scan of the folded text for the common case, an input that is not sensitive. */
const ANY_TOPIC_RE = new RegExp(` (?:${TOPIC_RES.map(([, re]) => re.source.slice(4, -2)).join('|')}) `);

/** Personal data written out in the input itself. */
const DATA_RES: RegExp[] = [
  /[\w.+-]+@[\w-]+\.[\w.-]+/, // e-mail
  /(?:\+33\s?|\b0)[1-9](?:[\s.-]?\d{2}){4}\b/, // French phone number
  /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}\b/, // IBAN
  /\b(?:\d{4}[\s-]?){3}\d{4}\b/, // card number
  /\b[12]\s?\d{2}\s?\d{2}\s?\d{2}\s?\d{3}\s?\d{3}\s?\d{2}\b/, // French social security number
];

/**
 * Each of DATA_RES needs an `@` or digits: a text with neither is not scanned five times (this
 * check runs on every input, before the model is called).
 */
const MAY_HOLD_DATA = /[@\d]/;

/**
 * The folded form the topics are matched on: `fold`, then `.`, `+` and `@` (which fold keeps) as
 * word separators too — every run of characters other than a-z and 0-9 is one space, and the
 * text is padded with one space on each side.
 */
function foldForTopics(text: string): string {
  const words = text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return ` ${words} `;
}

/**
 * The sensitive topic of `text`, or null. The folded text is padded with spaces and its words are
 * joined by single spaces, so `" word "` is a whole-word test and multi-word entries match across
 * punctuation ("mot-de-passe", "l'argent"). The topics are tried in their order only once one
 * of them matched (ANY_TOPIC_RE), so the topic named is the same as trying each in turn.
 */
export function detectSensitive(text: string): SensitiveTopic | null {
  if (MAY_HOLD_DATA.test(text)) for (const re of DATA_RES) if (re.test(text)) return 'donnees_personnelles';
  const folded = foldForTopics(text);
  if (!ANY_TOPIC_RE.test(folded)) return null;
  for (const [topic, re] of TOPIC_RES) if (re.test(folded)) return topic;
  return null;
}
