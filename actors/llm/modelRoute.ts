import type { SkullConfig } from '../skull/skullConfig.js';
import type { Logger } from '../../core/log.js';
import { skullPrimaryRoute, type ModelStatus } from './modelStatus.js';
import type { LlmProvider } from '../../machines/llmPort.js';

/**
 * Sends calls for a model the provider no longer lists to a substitute (Skull: the fallback model),
 * so a `missing` primary costs no failed call per turn. `route` is read at each call: the model
 * check (actors/llm/modelStatus.ts) may change it every 24 h. Each change is logged once.
 */
function routeMissingModels(inner: LlmProvider, route: (model: string) => string | undefined, logger: Logger): LlmProvider {
  const announced = new Map<string, string | undefined>();
  return {
    name: inner.name,
    generate(req) {
      const to = route(req.model);
      if (announced.get(req.model) !== to) {
        announced.set(req.model, to);
        if (to) logger.warn({ model: req.model, routedTo: to }, `model ${req.model} is not offered by ${inner.name}: calls go to ${to}`);
        else if (announced.size > 0) logger.info({ model: req.model }, `model ${req.model} is called again`);
      }
      return inner.generate(to ? { ...req, model: to } : req);
    },
  };
}

/** Skull's provider with a missing `AI_MODEL` served by a listed `AI_FALLBACK_MODEL` (same rule everywhere Skull runs). */
export function routeSkullPrimary(
  provider: LlmProvider,
  config: Pick<SkullConfig, 'AI_MODEL' | 'AI_FALLBACK_MODEL'>,
  statuses: () => readonly ModelStatus[],
  logger: Logger,
): LlmProvider {
  const { AI_MODEL: primary, AI_FALLBACK_MODEL: fallback } = config;
  return routeMissingModels(provider, (model) => (model === primary ? skullPrimaryRoute(statuses(), primary, fallback) : undefined), logger);
}
