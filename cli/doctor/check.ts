/**
 * One line of `palabre doctor`. `fail` is something a configured surface needs (exit 1); `warn` is
 * optional and missing (tests, an engine that improves a surface); `unchecked` says plainly that
 * nothing was verified.
 */
export type CheckStatus = 'ok' | 'fail' | 'warn' | 'unchecked';

export interface Check {
  /** Stable id for scripts (`--json`), e.g. `port.http`, `surface.docs.model`. */
  id: string;
  /** Group shown as a heading: system, network, engines, surfaces, corpus. */
  group: 'system' | 'network' | 'engines' | 'surfaces' | 'corpus';
  label: string;
  status: CheckStatus;
  detail: string;
  /** What to do, for every line that is not ok. */
  fix?: string;
}

export const MARK: Record<CheckStatus, string> = { ok: '✓', fail: '✗', warn: '!', unchecked: '?' };

/** The surface names this build's `palabre serve` knows (actors/surfaces.ts). */
const KNOWN_SURFACES = ['skull', 'docs', 'corrections', 't2', 'inspect'] as const;

/** The surfaces SURFACES selects, as core/server.ts's selectSurfaces reads it, plus the unknown names. */
export function configuredSurfaces(setting: string): { names: string[]; unknown: string[] } {
  const wanted = setting.trim();
  if (wanted === 'all') return { names: [...KNOWN_SURFACES], unknown: [] };
  const names = wanted === 'none' ? [] : wanted.split(',').map((n) => n.trim());
  const known: readonly string[] = KNOWN_SURFACES;
  return { names: names.filter((n) => known.includes(n)), unknown: names.filter((n) => !known.includes(n)) };
}
