import { createWebSocketInspector } from '@statelyai/inspect';
import type { AnyEventObject, MachineContext } from 'xstate';
import type { Runtime } from '../../core/runtime.js';
import type { Logger } from '../../core/log.js';
import { redactForInspection } from './redact.js';

/**
 * `INSPECT=stately`: forwards the runtime's inspection stream to Stately's WebSocket inspector
 * (`@statelyai/inspect`), with the same redaction as /inspect so no key, JWT or audio leaves.
 */
export function attachStatelyInspector(runtime: Runtime, url: string, logger: Logger): { stop(): void } {
  const inspector = createWebSocketInspector({
    url,
    autoStart: true,
    sanitizeEvent: (event: AnyEventObject) => redactForInspection(event) as AnyEventObject,
    sanitizeContext: (context: MachineContext) => redactForInspection(context) as MachineContext,
  });
  const off = runtime.onInspect((e) => inspector.inspect.next?.(e));
  logger.info({ url }, 'Stately inspector attached');
  return {
    stop() {
      off();
      inspector.stop();
    },
  };
}
