import { getAdjacencyMap, getShortestPaths } from 'xstate/graph';
import { skullMachine } from '../../machines/skull.js';
import { skullSettings } from '../../actors/skull/settings.js';
import { testConfig } from './support.js';
const settings = skullSettings(testConfig());
const okOut = { ok: true, result: { text: 'Bonjour.', model: 'gpt-5-mini', provider: 'offline', usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, cacheCreationTokens: 0, latencyMs: 0 } }, attempts: 1, model: 'gpt-5-mini' };
const events = [
  { type: 'asr.text', text: 'bonjour' },
  { type: 'asr.text', text: 'argent' },
  { type: 'ai.request', text: 'question' },
  { type: 'ai.cancel' },
  { type: 'xstate.done.actor.llm', output: okOut },
  { type: 'xstate.done.actor.publish' },
  { type: 'xstate.after.debounce.skull.debounce.window' },
] as const;
const t0 = Date.now();
const paths = getShortestPaths(skullMachine, {
  input: { deviceId: 'x', settings, defaultPrompt: 'p' },
  events: events as never,
  serializeState: (s) => JSON.stringify([s.value, (s.context as { queue: unknown[] }).queue.length]),
});
console.log(paths.length, Date.now() - t0, paths.map((p) => JSON.stringify(p.state.value)).slice(0, 50));
