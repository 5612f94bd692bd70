import { CODE_CRITERE, WRITTEN_ONLY_CODES, AUTRE } from '../../prompts/taxonomy.js';
import { oralModelOutputSchema, writtenModelOutputSchema, type ModelOutput } from '../../prompts/corrections/modelOutput.js';
import { candidateText, quoteOccursIn } from './production.js';
import { type Production } from '../../prompts/corrections/tasks.js';

export type ValidationResult = { ok: true; value: ModelOutput } | { ok: false; errors: string[] };

/** Takes the JSON object out of a model answer (bare, or inside a ```json fence). */
function extractJson(raw: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(raw);
  const body = (fenced?.[1] ?? raw).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('aucun objet JSON dans la réponse');
  return JSON.parse(body.slice(start, end + 1));
}

/**
 * Applies the spec's rules to a model answer. Messages are French and precise: they are sent back
 * to the model in the repair round. Any single failure makes the whole answer invalid — a
 * half-valid report is never kept.
 */
export function validateModelAnswer(raw: string, production: Production): ValidationResult {
  let json: unknown;
  try {
    json = extractJson(raw);
  } catch (err) {
    return { ok: false, errors: [`La réponse n'est pas un objet JSON valide (${(err as Error).message}).`] };
  }
  const schema = production.epreuve === 'EE' ? writtenModelOutputSchema : oralModelOutputSchema;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    return { ok: false, errors: parsed.error.issues.slice(0, 20).map((i) => `${i.path.join('.') || '(racine)'} : ${i.message}`) };
  }
  const errors = ruleErrors(parsed.data, production);
  return errors.length ? { ok: false, errors } : { ok: true, value: parsed.data };
}

/** The taxonomy's usage rules, on a structurally valid answer. */
function ruleErrors(value: ModelOutput, production: Production): string[] {
  const text = candidateText(production);
  const out: string[] = [];
  value.erreurs.forEach((e, i) => {
    const at = `erreurs[${i}]`;
    if (e.code === AUTRE) {
      if (e.description === null || e.description.trim() === '') out.push(`${at} : le code "autre" exige une description non nulle.`);
    } else {
      const expected = CODE_CRITERE.get(e.code);
      if (expected !== e.critere) out.push(`${at} : le code "${e.code}" appartient au critère "${expected}", pas à "${e.critere}".`);
      if (e.description !== null) out.push(`${at} : "description" doit être null pour un code autre que "autre".`);
    }
    if (production.epreuve === 'EO' && WRITTEN_ONLY_CODES.has(e.code)) {
      out.push(`${at} : le code "${e.code}" ne s'applique pas à une production orale.`);
    }
    if (!quoteOccursIn(e.extrait, text)) {
      out.push(`${at} : l'extrait "${e.extrait.slice(0, 80)}" ne figure pas mot pour mot dans la production${production.epreuve === 'EO' ? ' (tours du candidat)' : ''}.`);
    }
  });
  return out;
}
