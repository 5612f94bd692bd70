import type { LlmConfig } from '../llm/llmConfig.js';
import type { SkullConfig } from './skullConfig.js';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { LlmProvider } from '../../machines/llmPort.js';
import { registerOfflineResponder } from '../llm/offline.js';
import { generateEffects } from './generator.js';
import { publishEffect } from './publisher.js';
import type { SkullChart, SkullWiring } from '../../transports/mqtt/skullPort.js';
import { skullMachine, type SkullEvent, type SkullInput } from '../../machines/skull.js';
import { skullFleetMachine, type FleetHooks } from '../../machines/skullFleet.js';
import { skullOfflineResponder } from '../../prompts/skull/persona.js';
import { BUILTIN_PROMPT } from '../../prompts/skull/contextPrompt.js';
import { readPromptFile } from './promptFile.js';
import { skullSettings } from './settings.js';
import { o200k } from './tokens.js';
import type { SkullSettings } from '../../machines/skullTypes.js';


/**
 * A fleet's supervisor chart provided over the edge's device set (the only `.provide()` of that
 * chart): its decisions (spawn, stop, forward, refuse; is a device busy) act on the edge's devices.
 */
export function fleetSupervisor(hooks: FleetHooks): typeof skullFleetMachine {
  return skullFleetMachine.provide({
    actions: {
      spawnDevice: (_, p: { deviceId: string }) => hooks.spawnDevice(p.deviceId),
      stopDevice: (_, p: { deviceId: string; why: string }) => hooks.stopDevice(p.deviceId, p.why),
      forward: (_, p: { deviceId: string; event: SkullEvent }) => hooks.forward(p.deviceId, p.event),
      refuse: (_, p: { deviceId: string; live: number }) => hooks.refuse(p.deviceId, p.live),
    },
    guards: {
      deviceBusy: (_, p: { deviceId: string }) => hooks.deviceBusy(p.deviceId),
    },
  });
}

export interface SkullWiringOptions {
  config: SkullConfig & LlmConfig;
  logger: Logger;
  provider: LlmProvider;
  metrics?: Metrics;
  /** Clock for latency figures (SimulatedClock.now in tests). */
  now?: () => number;
  random?: () => number;
  /** Overrides of the settings derived from config (tests, benches). */
  settings?: Partial<SkullSettings>;
  /**
   * The skull chart with its actors already provided (model-based tests hand in one whose
   * `generate` and publish they control); used as is.
   */
  machine?: SkullChart;
  /** The actor's input as is (model-based tests); default: built from config. */
  input?: SkullInput;
}

export function wireSkull(opts: SkullWiringOptions): SkullWiring {
  const { config, provider, metrics } = opts;
  const now = opts.now ?? Date.now;
  const settings: SkullSettings = { ...skullSettings(config), ...opts.settings };
  const prompt = readPromptFile(config.SKULL_PROMPT_FILE, BUILTIN_PROMPT);
  return {
    settings,
    promptFromFile: prompt.fromFile,
    providerName: provider.name,
    input: (deviceId) =>
      opts.input ?? { deviceId, settings, defaultPrompt: prompt.text, now, tokens: o200k, ...(opts.random ? { random: opts.random } : {}) },
    machine(publish, log, machineOpts) {
      if (opts.machine) return opts.machine;
      const tag = machineOpts?.tagDevice === true;
      return skullMachine.provide({
        actions: {
          ...generateEffects(provider),
          publishReply: publishEffect(publish),
          // Retries are logged with their cause (the spec's logs: "causes retry, bascule fallback").
          recordRetry: (_, params: { kind: string; model: string; attempt: number; backoffMs: number }) => {
            metrics?.llmRetries.inc({ purpose: 'skull', kind: params.kind });
            log.warn(params, 'llm retry');
          },
          reportFallback: ({ context }, params: { model: string }) =>
            log.warn({ ...(tag ? { deviceId: context.deviceId } : {}), model: params.model }, 'primary model failed: falling back'),
          reportApology: ({ context }) => log.error(tag ? { deviceId: context.deviceId } : {}, 'no usable reply from any model: apology published'),
        },
      });
    },
    activate: () => registerOfflineResponder('skull', skullOfflineResponder),
  };
}
