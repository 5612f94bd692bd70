import { fold } from '../../machines/textFold.js';

/**
 * What kind of answer a question asks for, when it is a kind documentation does not hold:
 * - `price`: what something costs (« Combien coûte… », « How much does … cost », « tarif »):
 *   docs name tools and hosts, they do not sell them;
 * - `place`: another country's rules or facts (« une entreprise suisse », « in Japan »): the
 *   corpus is about French and EU law and an international protocol;
 * - `live`: the world as it is now or was last year (« cette année », « last year », « latest
 *   version », « demain »): docs are not a live source; a release still to come (« Quand sortira… »,
 *   « when will … be released ») neither (§ Seventh round);
 * - `task`: a request to produce something (« Write a SQL query… », « Rédige… »): the assistant
 *   quotes the docs, it does not write for them (§ Seventh round).
 * Such a question is never answered with confidence "high" (confidence.ts): its words can all be in
 * the docs — the traps of the labelled sets reuse the docs' own tools, figures and names — while
 * its answer is not. Measured (bench/journal/2026-12-docs-assistant.md § Sixth round): on the 644
 * labelled tuning questions these fire on 0 of 486 answerable and 28 of 158 out-of-scope ones, in
 * every set; words that also fired on answerable questions (« charge », « euros », « statistiques »,
 * « combien de ») were left out.
 */
export type AnswerType = 'price' | 'place' | 'live' | 'task';

const PRICE = new RegExp(
  [
    '\\bprix\\b', '\\btarifs?\\b', '\\bpricing\\b', '\\bprices?\\b', '\\bcost of\\b', '\\bper month\\b', '\\bpar mois\\b',
    '\\bcombien (?:coute|coutent|ca coute|faut-il payer)',
    '\\bhow much (?:does|do|is|are|would|will)\\b.*\\b(?:cost|charge|pay)',
  ].join('|'),
);

const PLACE = new RegExp(
  `\\b(?:${[
    'suisses?', 'swiss', 'switzerland', 'allemagnes?', 'allemande?s?', 'germany', 'german', 'etats-unis', 'americaine?s?', 'american',
    'usa', 'royaume-uni', 'britannique', 'uk', 'british', 'canada', 'canadienne?s?', 'belgique', 'belges?', 'japon', 'japan', 'chine',
    'china', 'chinois', 'espagne', 'spain', 'italie', 'italy', 'inde', 'india', 'bresil', 'brazil', 'quebec', 'californi\\w*',
  ].join('|')})\\b`,
);

const LIVE = new RegExp(
  `\\b(?:${[
    'cette annee', "l'an dernier", "l'annee (?:derniere|prochaine)", 'this year', 'last year', 'next year', 'currently', 'actuellement',
    'en ce moment', 'a ce jour', 'as of', 'sortira', 'sortiront', 'when will', 'will be released', 'latest', 'most recent', 'quelle heure est-il', 'what time is it', 'derniere version', 'plus recente?', "aujourd'hui", 'today', 'tomorrow', 'demain', 'right now',
  ].join('|')})\\b`,
);

const TASK = /^(?:write|ecris|ecrivez|redige|redigez|translate|traduis|compose|draft)\b/;

/** The answer type the question asks for, if documentation cannot hold it; null otherwise. */
export function answerTypeOutsideDocs(question: string): AnswerType | null {
  const q = fold(question).replace(/[’']/g, "'");
  if (PRICE.test(q)) return 'price';
  if (PLACE.test(q)) return 'place';
  if (LIVE.test(q)) return 'live';
  if (TASK.test(q.trim())) return 'task';
  return null;
}
