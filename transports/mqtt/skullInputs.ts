import type { MqttClient } from 'mqtt';
import type { z } from 'zod';
import type { Logger } from '../../core/log.js';
import type { Metrics } from '../../core/metrics.js';
import type { SkullEvent } from '../../machines/skull.js';
import { cancelSchema, parsePayload, promptSystemSchema, textInputSchema, type IaConfig, type RejectReason } from './skullSchemas.js';
import type { SkullTopics } from './skullTopics.js';
import { coalesceWritesOfThisTurn } from './coalesceWrites.js';

/**
 * The inputs of one Skull device (docs/skull.md#topics): each message is validated against its
 * topic's schema and sent to the device's actor as a typed event; a bad one is counted, logged and
 * dropped. What was refused, and where the prompt comes from, is kept here for ai/health.
 */
export class InputLedger {
  readonly rejected: Partial<Record<RejectReason, number>> = {};
  invalidConfig = 0;
  lastConfigError: string | null = null;
  /** A retained skull/config/prompt_system is in force (it overrides the prompt file). */
  retainedPrompt = false;

  get rejectedTotal(): number {
    return Object.values(this.rejected).reduce((a, b) => a + b, 0);
  }
}

export interface SkullInputsOptions {
  topics: SkullTopics;
  /** The retained config's schema: it may only pick among the models and language announced. */
  iaSchema: z.ZodType<IaConfig>;
  send: (event: SkullEvent) => void;
  ledger: InputLedger;
  log: Logger;
  metrics?: Metrics | undefined;
}

export function routeSkullInputs(client: MqttClient, o: SkullInputsOptions): void {
  const { topics, send, ledger, log } = o;
  const reject = (topic: string, reason: RejectReason, detail: string) => {
    ledger.rejected[reason] = (ledger.rejected[reason] ?? 0) + 1;
    o.metrics?.inputRejected.inc({ surface: 'skull', reason });
    log.warn({ topic, reason, detail }, 'input rejected');
  };
  const badConfig = (topic: string, reason: RejectReason, detail: string, kept: string) => {
    ledger.invalidConfig++;
    ledger.lastConfigError = `${topic}: ${reason} (${detail})`;
    reject(topic, reason, `${detail}; keeping the last good ${kept}`);
  };

  client.on('message', (topic, payload) => {
    switch (topic) {
      case topics.asrText:
      case topics.aiRequest: {
        const r = parsePayload(payload, textInputSchema);
        if (!r.ok) return reject(topic, r.reason, r.detail);
        coalesceWritesOfThisTurn(client);
        return send(topic === topics.asrText ? { type: 'asr.text', text: r.value.text } : { type: 'ai.request', text: r.value.text });
      }
      case topics.aiCancel: {
        const r = parsePayload(payload, cancelSchema, {});
        if (!r.ok) return reject(topic, r.reason, r.detail);
        return send({ type: 'ai.cancel' });
      }
      case topics.configIa: {
        if (payload.length === 0) {
          log.info('retained skull/config/ia cleared: environment defaults apply');
          return send({ type: 'config.ia', config: null });
        }
        const r = parsePayload(payload, o.iaSchema);
        if (!r.ok) return badConfig(topic, r.reason, r.detail, 'config');
        log.info({ config: r.value }, 'skull/config/ia applied for the next turn');
        return send({ type: 'config.ia', config: r.value });
      }
      case topics.configPrompt: {
        if (payload.length === 0) {
          ledger.retainedPrompt = false;
          log.info('retained prompt_system cleared: using the prompt file');
          return send({ type: 'config.prompt', text: null });
        }
        const r = parsePayload(payload, promptSystemSchema);
        if (!r.ok) return badConfig(topic, r.reason, r.detail, 'prompt');
        ledger.retainedPrompt = true;
        log.info({ chars: r.value.text.length }, 'prompt_system applied for the next turn');
        return send({ type: 'config.prompt', text: r.value.text });
      }
      default:
        return undefined;
    }
  });
}
