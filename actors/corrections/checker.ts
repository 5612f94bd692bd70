import type { Logger } from '../../core/log.js';
import { buildContext, type Finding } from './detectors/context.js';
import { DETECTORS } from './detectors/allDetectors.js';
import { ANGLICISM_PHRASE_WORDS, ANGLICISMS, SMS_WORDS } from './detectors/lexicalChecks.js';
import { toFindings } from './grammalecte/mapping.js';
import { INSTALL_HINT } from './grammalecte/locate.js';
import type { GrammarEngine } from './grammalecte/sidecar.js';
import type { Production } from '../../prompts/corrections/tasks.js';

/**
 * The offline checker: the built-in detectors (form, register, negation, anglicisms, capitals of
 * nationality adjectives…) plus, when it runs, Grammalecte (agreement, conjugation, homophones,
 * mood, spelling). One error found by both is reported once; with Grammalecte the built-in
 * spelling list steps aside (Grammalecte checks every word against its full dictionary).
 */

type EngineName = 'grammalecte' | 'detectors';

export interface EngineStatus {
  engine: EngineName;
  version?: string;
  /** Why Grammalecte is not active, and how to get it. */
  reason?: string;
  install?: string;
}

const AGREEMENT = new Set(['accord_sujet_verbe', 'accord_adjectif_nom', 'accord_participe_passe', 'accord_determinant_nom', 'genre_incorrect', 'nombre_incorrect']);
const LEXICON_WORDS: ReadonlySet<string> = new Set([...Object.keys(ANGLICISMS), ...ANGLICISM_PHRASE_WORDS, ...SMS_WORDS]);

const overlaps = (a: Finding, b: Finding) => a.start < b.start + b.extrait.length && b.start < a.start + a.extrait.length;
const sameError = (a: Finding, b: Finding) => overlaps(a, b) && (a.code === b.code || (AGREEMENT.has(a.code) && AGREEMENT.has(b.code)));

/** Adds `extra` findings that no finding of `base` already reports. */
/** Built-in findings that decide a passage alone: Grammalecte's reading of the same words is dropped. */
const DECISIVE = new Set(['confusion_homophones', 'anglicisme', 'majuscules_incorrectes', 'negation_incomplete']);

function mergeFindings(base: Finding[], extra: Finding[]): Finding[] {
  const out = [...base];
  const decisive = base.filter((b) => DECISIVE.has(b.code));
  for (const f of extra) {
    if (out.some((g) => sameError(g, f))) continue;
    if (decisive.some((d) => overlaps(d, f) && !(d.code === 'negation_incomplete' && AGREEMENT.has(f.code)))) continue;
    out.push(f);
  }
  return out.sort((a, b) => a.start - b.start);
}

/** What checked a production, and why Grammalecte did not when it should have. */
export interface CheckOutcome {
  findings: Finding[];
  engine: EngineName;
  /** Grammalecte was wanted (not GRAMMALECTE=off) but did not check this text: why. */
  grammalecteMissing?: string;
}

export class Checker {
  /**
   * `missing`: why no Grammalecte was found (it was wanted); undefined with no sidecar means
   * GRAMMALECTE=off, a choice, not something missing.
   */
  constructor(
    private readonly sidecar: GrammarEngine | undefined,
    private readonly missing: string | undefined,
    private readonly log?: Logger,
  ) {}

  status(): EngineStatus {
    const s = this.sidecar;
    if (s && s.state === 'ready') return { engine: 'grammalecte', version: s.version };
    const reason = s ? `Grammalecte ${s.state}${s.lastError ? `: ${s.lastError}` : ''}` : (this.missing ?? 'Grammalecte disabled (GRAMMALECTE=off)');
    return { engine: 'detectors', reason, install: INSTALL_HINT };
  }

  /**
   * Every finding on the production, sorted by position, quotes verbatim. Grammalecte is waited for
   * (warm-up, restart, its queue): under load a production takes longer, it is not graded with
   * fewer engines. Only a Grammalecte that cannot run (missing, failed to start, stopped) or fails on
   * this text leaves the detectors alone, and the outcome says why.
   */
  async check(production: Production): Promise<CheckOutcome> {
    const ctx = buildContext(production);
    const s = this.sidecar;
    const detect = (skip: (name: string) => boolean): Finding[] =>
      DETECTORS.filter((d) => !skip(d.name) && d.applies(production)).flatMap((d) => d.detect(ctx));
    const alone = (why: string | undefined): CheckOutcome => ({
      findings: detect(() => false).sort((a, b) => a.start - b.start),
      engine: 'detectors',
      ...(why !== undefined ? { grammalecteMissing: why } : {}),
    });
    if (ctx.text.trim() === '') return alone(undefined);
    if (!s) return alone(this.missing);
    let result;
    try {
      result = await s.check(ctx.text);
    } catch (err) {
      const why = (err as Error).message;
      this.log?.warn({ err: why }, 'Grammalecte check failed: built-in detectors alone for this production');
      return alone(why);
    }
    // With Grammalecte the built-in spelling list steps aside (it checks every word).
    const builtIn = detect((name) => name === 'orthographe');
    const gl = toFindings(ctx, result, { oral: production.epreuve === 'EO', lexiconWords: LEXICON_WORDS });
    return { findings: mergeFindings(builtIn, gl), engine: 'grammalecte' };
  }
}
