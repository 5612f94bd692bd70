import { SimulatedClock } from 'xstate';
import { Runtime } from '../../core/runtime.js';
import { generateEffects } from '../../actors/skull/generator.js';
import { publishEffect } from '../../actors/skull/publisher.js';
import { skullMachine, type SkullActorRef } from '../../machines/skull.js';
import { o200k } from '../../actors/skull/tokens.js';
import { skullSettings } from '../../actors/skull/settings.js';
import type { Outgoing, SkullSettings } from '../../machines/skullTypes.js';
import { ScriptedProvider, testConfig } from './support.js';

/**
 * The skull chart wired like production (real generate effects and breaker machine, spawned through the
 * Runtime) but with a scripted provider, a recording publisher and a SimulatedClock: no broker,
 * no real time. The MQTT suites (e2e, model) run the same chart behind the real transport.
 */
export interface ChartRig {
  actor: SkullActorRef;
  clock: SimulatedClock;
  provider: ScriptedProvider;
  published: Outgoing[];
  /** Let promise callbacks (provider, publisher) run. */
  flush(): Promise<void>;
  /** Advances simulated time and lets the callbacks it triggers run. */
  advance(ms: number): Promise<void>;
  stop(): void;
}

export function startChart(opts: { settings?: Partial<SkullSettings>; provider?: ScriptedProvider; manualPublish?: boolean } = {}): ChartRig {
  const clock = new SimulatedClock();
  const runtime = new Runtime({ clock });
  const provider = opts.provider ?? new ScriptedProvider();
  const published: Outgoing[] = [];
  const settings: SkullSettings = { ...skullSettings(testConfig()), ...opts.settings };
  const machine = skullMachine.provide({
    actions: {
      ...generateEffects(provider),
      publishReply: publishEffect(async (input) => {
        published.push(input);
      }),
    },
  });
  const actor = runtime.start('skull', 'skull:test', machine, {
    deviceId: 'test',
    settings,
    defaultPrompt: 'Tu es Skull.',
    tokens: o200k,
    now: () => clock.now(),
    random: () => 0,
  }) as SkullActorRef;
  const flush = async () => {
    for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
  };
  return {
    actor,
    clock,
    provider,
    published,
    flush,
    async advance(ms) {
      clock.increment(ms);
      await flush();
    },
    stop: () => runtime.shutdown(),
  };
}
