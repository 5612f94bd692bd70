import { createActor, fromPromise, toPromise, type ActorOptions, type AnyActorLogic, type InspectionEvent } from 'xstate';
import type { Metrics } from '../../core/metrics.js';
import { llmCallMachine, type GenerateActorInput, type LlmCallInput, type LlmCallOutput } from '../../machines/llmCall.js';
import type { GenerateResult, LlmProvider } from '../../machines/llmPort.js';

type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

export interface ProvideLlmCallOptions {
  /** Counts retries in `palabre_llm_retries_total` (calls, latency and tokens are the provider's). */
  metrics?: Pick<Metrics, 'llmRetries'>;
  /** Streaming: each text delta of the attempt in flight. */
  onDelta?: (delta: string) => void;
}

/**
 * The `generate` actor: one provider call per attempt. The fromPromise `signal` is aborted when the
 * machine leaves `attempting` (timeout, stop), and the provider hands it to the SDK, so the HTTP
 * request in flight is aborted too.
 */
function generateActor(provider: LlmProvider, onDelta?: (delta: string) => void) {
  return fromPromise<GenerateResult, GenerateActorInput>(({ input, signal }) =>
    provider.generate({ ...input.request, signal, ...(onDelta ? { onDelta } : {}) }),
  );
}

/** The llmCall machine wired to a real provider (what Skull and the other surfaces invoke). */
export function provideLlmCall(provider: LlmProvider, opts: ProvideLlmCallOptions = {}) {
  const { metrics, onDelta } = opts;
  return llmCallMachine.provide({
    actors: { generate: generateActor(provider, onDelta) },
    actions: {
      recordRetry: ({ context }, params: { kind: string }) => {
        metrics?.llmRetries.inc({ purpose: context.request.purpose ?? 'unknown', kind: params.kind });
      },
    },
  });
}

export interface RunLlmCallOptions extends ProvideLlmCallOptions {
  /** SimulatedClock in tests. */
  clock?: Clock;
  /** Stops the call: the attempt in flight is aborted and the promise resolves with `aborted`. */
  signal?: AbortSignal;
  inspect?: (event: InspectionEvent) => void;
}

/** Promise-style llmCall for callers that are not statecharts (CLI, HTTP handlers). Never rejects. */
export async function runLlmCall(provider: LlmProvider, input: LlmCallInput, opts: RunLlmCallOptions = {}): Promise<LlmCallOutput> {
  const machine = provideLlmCall(provider, opts);
  const actor = createActor(machine, {
    input,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.inspect ? { inspect: opts.inspect } : {}),
  });
  const abortedOutput = (): LlmCallOutput => ({
    ok: false,
    error: { kind: 'aborted', message: 'the call was aborted by its caller' },
    attempts: actor.getSnapshot().context.attempts,
    model: actor.getSnapshot().context.model,
  });
  if (opts.signal?.aborted) return abortedOutput();
  // Stopping the actor aborts the attempt in flight (fromPromise signal) and completes the actor
  // without output; the output of an aborted call is made here.
  let aborted: LlmCallOutput | undefined;
  const onAbort = () => {
    aborted = abortedOutput();
    actor.stop();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const done = toPromise(actor);
  actor.start();
  try {
    const out = await done;
    return aborted ?? out;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    actor.stop();
  }
}
