import type { z } from 'zod';
import type { SkullEvent } from '../../machines/skull.js';
import { cancelSchema, parsePayload, promptSystemSchema, textInputSchema, type IaConfig, type RejectReason } from './skullSchemas.js';
import type { SkullInputName } from './skullTopics.js';

/**
 * The Skull's input codec (docs/skull.md#topics): one input topic's payload → the typed event of
 * the device's chart, validated with its zod schema (skullSchemas.ts). The same for one device and
 * for a fleet; where the topic came from and which device it names is the edge's addressing.
 */
export type Decoded =
  | { ok: true; event: SkullEvent }
  | {
      ok: false;
      reason: RejectReason;
      detail: string;
      /** A retained config refused: the device keeps its last good one (counted apart on ai/health). */
      kept?: 'config' | 'prompt';
    };

export function decodeSkullInput(input: SkullInputName, payload: Buffer, iaSchema: z.ZodType<IaConfig>): Decoded {
  switch (input) {
    case 'asr/text':
    case 'ai/request': {
      const r = parsePayload(payload, textInputSchema);
      if (!r.ok) return r;
      return { ok: true, event: input === 'asr/text' ? { type: 'asr.text', text: r.value.text } : { type: 'ai.request', text: r.value.text } };
    }
    case 'ai/cancel': {
      const r = parsePayload(payload, cancelSchema, {});
      return r.ok ? { ok: true, event: { type: 'ai.cancel' } } : r;
    }
    case 'skull/config/ia': {
      // An empty retained message clears the config: the environment's defaults apply again.
      if (payload.length === 0) return { ok: true, event: { type: 'config.ia', config: null } };
      const r = parsePayload(payload, iaSchema);
      return r.ok ? { ok: true, event: { type: 'config.ia', config: r.value } } : { ...r, kept: 'config' };
    }
    case 'skull/config/prompt_system': {
      if (payload.length === 0) return { ok: true, event: { type: 'config.prompt', text: null } };
      const r = parsePayload(payload, promptSystemSchema);
      return r.ok ? { ok: true, event: { type: 'config.prompt', text: r.value.text } } : { ...r, kept: 'prompt' };
    }
  }
}

/** Why the edge refused an input: a bad payload, or (fleet) a bad device id, a full fleet, a held overflow. */
export type EdgeRejectReason = RejectReason | 'invalid_device_id' | 'fleet_full' | 'held_overflow';

/** What the edge refused, for ai/health: by reason, and the retained configs refused apart. */
export class InputLedger {
  readonly rejected: Partial<Record<EdgeRejectReason, number>> = {};
  invalidConfig = 0;
  lastConfigError: string | null = null;
  /** Messages for devices of another shard (ignored). */
  otherShard = 0;

  get rejectedTotal(): number {
    return Object.values(this.rejected).reduce((a, b) => a + b, 0);
  }
}
