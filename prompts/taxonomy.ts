import { z } from 'zod';
import data from './taxonomy.json' with { type: 'json' };

/**
 * The closed error taxonomy (prompts/taxonomy.source.fr.md; docs/corrections.md), loaded once from `taxonomy.json`.
 * Everything else — the report schema's code enum, the validation rules, the prompt's list, the
 * detectors' codes, the oral mapping — derives from this module, so the list is typed once.
 *
 * The spec's history says "63 codes + 4 `autre`"; its tables hold 66 named codes + one `autre` per
 * criterion (70 rows). The tables are the truth (test/corrections/taxonomy.test.ts holds it).
 */

export const WRITTEN_CRITERIA = ['adequation_tache', 'coherence_cohesion', 'competence_lexicale', 'competence_grammaticale'] as const;
export type Critere = (typeof WRITTEN_CRITERIA)[number];

/**
 * Oral criteria (docs/corrections.md § The report, 25 % each). The taxonomy's codes map onto the first three;
 * phonologie has no code and is not assessed until audio is (TD-08).
 */
export const ORAL_CRITERIA = ['coherence_cohesion', 'lexique', 'morphosyntaxe', 'phonologie'] as const;
export type OralCritere = (typeof ORAL_CRITERIA)[number];

const taxonomySchema = z.object({
  version: z.string(),
  source: z.string(),
  criteria: z.array(
    z.object({
      id: z.enum(WRITTEN_CRITERIA),
      label: z.string(),
      sections: z.array(z.object({ title: z.string(), codes: z.array(z.object({ code: z.string().regex(/^[a-z_]+$/), description: z.string().min(1) })) })),
    }),
  ).length(4),
});

type TaxonomyData = z.infer<typeof taxonomySchema>;

export interface TaxonomyEntry {
  code: string;
  critere: Critere;
  section: string;
  description: string;
}

const TAXONOMY: TaxonomyData = taxonomySchema.parse(data);
export const TAXONOMY_VERSION = TAXONOMY.version;
export const AUTRE = 'autre';

/** Every row, `autre` included (one per criterion). */
export const ENTRIES: readonly TaxonomyEntry[] = TAXONOMY.criteria.flatMap((c) =>
  c.sections.flatMap((s) => s.codes.map((e) => ({ code: e.code, critere: c.id, section: s.title, description: e.description }))),
);

/** Named codes (without `autre`) → their criterion. */
export const CODE_CRITERE: ReadonlyMap<string, Critere> = new Map(ENTRIES.filter((e) => e.code !== AUTRE).map((e) => [e.code, e.critere]));

/** The closed list a report's `code` must come from: every named code plus `autre`. */
export const ALL_CODES: readonly [string, ...string[]] = [AUTRE, ...CODE_CRITERE.keys()];

export const CRITERE_LABEL: Readonly<Record<Critere, string>> = Object.fromEntries(TAXONOMY.criteria.map((c) => [c.id, c.label])) as Record<Critere, string>;

export const ORAL_CRITERE_LABEL: Readonly<Record<OralCritere, string>> = {
  coherence_cohesion: 'Cohérence et cohésion',
  lexique: 'Étendue et maîtrise du lexique',
  morphosyntaxe: 'Maîtrise morphosyntaxique',
  phonologie: 'Phonologie',
};

/**
 * Codes that cannot describe a spoken production (they judge layout, spelling or punctuation of a
 * written text, or the written tasks' word limits). The oral prompt omits them and oral validation
 * refuses them: a transcript's punctuation and spelling come from speech recognition, not from the
 * candidate.
 */
export const WRITTEN_ONLY_CODES: ReadonlySet<string> = new Set([
  'longueur_insuffisante', 'longueur_excessive', 'salutation_absente', 'cloture_absente', 'structure_absente',
  'abreviations_sms', 'paragraphes_absents', 'faute_orthographe_courante', 'confusion_homophones',
  'majuscules_incorrectes', 'virgule_exces', 'virgule_absence', 'point_absent', 'ponctuation_incorrecte',
  'format_non_respecte',
]);

/**
 * Where a taxonomy criterion's codes count in an oral report. Adéquation codes judge how the
 * candidate handles the task and interaction (cohérence) except register, which is lexical choice.
 */
export function oralCritereOf(critere: Critere, code: string): Exclude<OralCritere, 'phonologie'> {
  switch (critere) {
    case 'coherence_cohesion':
      return 'coherence_cohesion';
    case 'competence_lexicale':
      return 'lexique';
    case 'competence_grammaticale':
      return 'morphosyntaxe';
    case 'adequation_tache':
      return ['registre_trop_formel', 'registre_trop_familier', 'tutoiement_inadequat'].includes(code) ? 'lexique' : 'coherence_cohesion';
  }
}

export function describeCode(code: string, critere?: Critere): string | undefined {
  return ENTRIES.find((e) => e.code === code && (critere === undefined || e.critere === critere))?.description;
}
