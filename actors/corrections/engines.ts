import type { CheckOutcome } from './checker.js';
import type { Report } from '../../machines/correctionReport.js';

/**
 * Every report says which offline engines checked the text (`moteurs`), and tells the candidate when
 * Grammalecte was wanted but did not check it: its errors (agreement, conjugation, spelling) are
 * then missing and the grade is likely too high.
 */

export const GRAMMALECTE_MISSING_WARNING =
  "Vérification grammaticale approfondie (Grammalecte) indisponible pour cette production : seuls les détecteurs intégrés l'ont relue. Des erreurs d'accord, de conjugaison ou d'orthographe peuvent manquer, et la note être trop haute.";

export function withEngines(report: Report, checked: Pick<CheckOutcome, 'engine' | 'grammalecteMissing'>): Report {
  const moteurs: NonNullable<Report['moteurs']> = checked.engine === 'grammalecte' ? ['detecteurs', 'grammalecte'] : ['detecteurs'];
  const avertissements = checked.grammalecteMissing !== undefined ? [...report.avertissements, GRAMMALECTE_MISSING_WARNING] : report.avertissements;
  return { ...report, moteurs, avertissements };
}
