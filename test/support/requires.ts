import { findBinary } from '../../cli/doctor/engineChecks.js';

/**
 * Tests that need a Debian package (chromium, mosquitto, espeak-ng, sox) ask here. On a
 * developer's machine without it they are skipped with the package named; with CI=true its
 * absence fails the run, because `.ci/run` installs it.
 *
 *   const chromium = requireBinary('chromium', 'chromium');
 *   describe.skipIf(!chromium.ok)(`browser (${chromium.reason})`, () => { … });
 */
export interface Requirement {
  ok: boolean;
  path: string;
  reason: string;
}

// The same lookup `palabre doctor` uses, so a test skips exactly when doctor reports the program missing.
export { findBinary };

export function requireBinary(binary: string, debianPackage: string): Requirement {
  const path = findBinary(binary);
  if (path) return { ok: true, path, reason: `${binary} at ${path}` };
  const reason = `needs ${binary}: apt-get install -y ${debianPackage}`;
  if (process.env.CI === 'true') {
    throw new Error(`CI=true and ${reason} (.ci/run should have installed it)`);
  }
  return { ok: false, path: '', reason };
}

/**
 * A Postgres server for the store conformance suite and the two-instance test: DATABASE_URL_TEST
 * (`.ci/run` starts a throw-away cluster; locally: eval "$(bash deploy/pg-throwaway.sh start)").
 */
export function requirePostgres(): Requirement {
  const url = process.env.DATABASE_URL_TEST;
  if (url) return { ok: true, path: url, reason: 'Postgres at DATABASE_URL_TEST' };
  const reason = 'needs Postgres: eval "$(bash deploy/pg-throwaway.sh start)" exports DATABASE_URL_TEST (apt-get install -y postgresql)';
  if (process.env.CI === 'true') {
    throw new Error(`CI=true and ${reason} (.ci/run should have started it)`);
  }
  return { ok: false, path: '', reason };
}
