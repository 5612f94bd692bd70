import { liveModelFor } from '../../actors/llm/liveModel.js';
import { createProviders } from '../../actors/llm/providers.js';
import type { ProviderName } from '../../machines/llmPort.js';
import type { PalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import type { Check } from './check.js';
import { checkModels, type CheckModelsDeps, type ModelStatus } from '../../actors/llm/modelStatus.js';

type Setting = ProviderName | 'auto';

/** The key (or settings) each provider needs; reported as set or unset, never shown. */
const KEY_OF: Record<Exclude<ProviderName, 'offline'>, string> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY', gemini: 'GEMINI_API_KEY' };

/** What a surface will call: its provider and the model ids it sends (checked by modelStatuses). */
export interface SurfaceModels {
  surface: string;
  provider: ProviderName;
  models: string[];
}

function keyState(config: PalabreConfig, provider: ProviderName): string {
  if (provider === 'offline') return 'no key needed';
  if (provider === 'gemini' && config.GEMINI_VERTEX) return `Vertex AI, GOOGLE_CLOUD_PROJECT ${config.GOOGLE_CLOUD_PROJECT ? 'set' : 'unset'}`;
  const key = KEY_OF[provider];
  const set = Boolean(config[key as keyof PalabreConfig]);
  if (provider === 'openai' && !set && config.OPENAI_BASE_URL) return 'OPENAI_API_KEY unset (OPENAI_BASE_URL set: a local server without key)';
  return `${key} ${set ? 'set' : 'unset'}`;
}

/**
 * Provider lines, one per configured surface: which provider it resolves to (as core/server.ts's
 * providersPerSurface does), whether the key is there, and the models it will call. A surface
 * that names a provider without its key would silently fall back to offline: that is a ✗.
 */
export function checkSurfaceProviders(config: PalabreConfig, surfaces: string[]): { checks: Check[]; models: SurfaceModels[] } {
  const providers = createProviders(config, { logger: silentLogger() });
  const available = providers.available();
  const checks: Check[] = [];
  const models: SurfaceModels[] = [];
  const one = (surface: string, variable: string, setting: Setting, surfaceModels: string[]) => {
    const wanted = setting === 'auto' ? config.LLM_PROVIDER : setting;
    const resolved = providers.resolve(wanted).name;
    const id = `surface.${surface}.provider`;
    if (wanted !== 'auto' && wanted !== 'offline' && !available.includes(wanted)) {
      checks.push({
        id, group: 'surfaces', label: `${surface} provider`, status: 'fail',
        detail: `${variable === 'LLM_PROVIDER' || setting === 'auto' ? 'LLM_PROVIDER' : variable}=${wanted} but ${keyState(config, wanted)}: it would answer with the offline provider`,
        fix: `set ${KEY_OF[wanted]} (environment or .env), or ${variable}=auto to use whichever key is set`,
      });
    } else {
      const how = resolved === 'offline' ? 'offline (deterministic, no network' + (available.length === 1 ? '; no API key is set)' : ')') : `${resolved} (${keyState(config, resolved)})`;
      checks.push({ id, group: 'surfaces', label: `${surface} provider`, status: 'ok', detail: how });
    }
    models.push({ surface, provider: resolved, models: resolved === 'offline' ? [] : surfaceModels });
  };
  for (const surface of surfaces) {
    if (surface === 'skull') one('skull', 'SKULL_PROVIDER', config.SKULL_PROVIDER, [config.AI_MODEL, config.AI_FALLBACK_MODEL]);
    if (surface === 'docs') one('docs', 'CHAT_PROVIDER', config.CHAT_PROVIDER, [config.CHAT_MODEL]);
    if (surface === 'corrections') one('corrections', 'CORRECTION_PROVIDER', config.CORRECTION_PROVIDER, [config.CORRECTION_MODEL]);
    if (surface === 't2') {
      if (available.includes('gemini')) {
        checks.push({ id: 'surface.t2.provider', group: 'surfaces', label: 't2 provider', status: 'ok', detail: `gemini Live (${keyState(config, 'gemini')})` });
        models.push({ surface: 't2', provider: 'gemini', models: [liveModelFor(config)] });
      } else {
        // Without Gemini, T2 runs in text mode: a working surface, not a missing piece.
        one('t2', 'T2_TEXT_PROVIDER', config.T2_TEXT_PROVIDER, [config.T2_TEXT_MODEL]);
        const line = checks.at(-1)!;
        if (line.status === 'ok') {
          line.status = 'warn';
          line.detail = `text mode, ${line.detail}; no audio (GEMINI_API_KEY unset)`;
          line.fix = 'set GEMINI_API_KEY for the spoken (Gemini Live) interlocutor';
        }
      }
    }
  }
  return { checks, models };
}

/**
 * One line per configured model: does its provider still offer it? Asks the providers through
 * actors/llm/modelStatus.ts (the same check `palabre serve` runs in the background and shows in
 * /healthz). A missing model is a ✗ (calls would fail); a deprecated one a warning with its date.
 */
export async function modelStatuses(config: PalabreConfig, surfaces: SurfaceModels[], deps: CheckModelsDeps = {}): Promise<Check[]> {
  const checks: Check[] = [];
  for (const s of surfaces) {
    if (s.provider === 'offline' || s.models.length === 0) {
      checks.push({ id: `surface.${s.surface}.model`, group: 'surfaces', label: `${s.surface} model`, status: 'ok', detail: 'none to check (offline provider)' });
    }
  }
  const online = new Set(surfaces.filter((s) => s.provider !== 'offline' && s.models.length > 0).map((s) => s.surface));
  if (online.size === 0) return checks;
  const statuses = await checkModels(config, deps);
  for (const m of statuses) {
    const owner = m.surface === 'embeddings' ? 'docs' : m.surface;
    if (!online.has(owner)) continue;
    checks.push(modelCheck(m));
  }
  return checks;
}

function modelCheck(m: ModelStatus): Check {
  const id = `surface.${m.surface}.model.${m.variable}`;
  const label = `${m.surface} model`;
  const what = `${m.provider} ${m.model} (${m.variable})`;
  switch (m.status) {
    case 'ok':
      return { id, group: 'surfaces', label, status: 'ok', detail: `${what}: offered` };
    case 'deprecated':
      return {
        id, group: 'surfaces', label, status: 'warn',
        detail: `${what}: ${m.shutdownDate ? `shuts down on ${m.shutdownDate}` : 'deprecated'}`,
        fix: `set ${m.variable} to a current model (docs/providers.md)`,
      };
    case 'missing':
      return {
        id, group: 'surfaces', label, status: 'fail',
        detail: `${what}: not offered by ${m.provider}${m.detail ? ` (${m.detail})` : ''}`,
        fix: `set ${m.variable} to a model ${m.provider} lists (docs/providers.md)`,
      };
    default:
      return { id, group: 'surfaces', label, status: 'unchecked', detail: `${what}: ${m.detail ?? 'unchecked'}`, fix: 'run doctor again once the provider answers' };
  }
}
