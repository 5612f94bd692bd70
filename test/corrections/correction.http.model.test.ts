import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import type { AnyActorRef, AnyStateMachine, EventObject, InspectionEvent } from 'xstate';
import { CorrectionEngine } from '../../actors/corrections/service.js';
import { createAuth } from '../../core/auth.js';
import { correctionMachine, type CorrectionInput } from '../../machines/correction.js';
import { correctionsHttp } from '../../actors/corrections/surface.js';
import { recordingProvider, registryOf } from '../docs/fixtures.js';
import { runModel, type OracleContext } from '../harness/index.js';
import { expectCorrection, project, samples, variants } from './correctionModelSpec.js';
import { makeContext } from './support.js';

/**
 * The `correction` paths replayed through the real wiring: each request is a `POST /corrections/ee`
 * on a real socket with a real bearer token, parsed and checked by the HTTP edge
 * (transports/http/correctionsHttp.ts, as actors/corrections/surface.ts mounts it), run by the real
 * engine (actors/corrections/service.ts: input from configuration and the provider, the
 * conversation in the process's actor system, its outcome turned into the answer or an error);
 * only the chart's invoked actors are the harness's, handed in through `provideChart`. The oracle
 * is the bare chart's plus what the HTTP client received.
 */
interface CorrectionWorld {
  received?: { status: number; body: unknown };
  aborted: boolean;
  providerCalls: number;
}

function expectCorrectionOverHttp(ctx: OracleContext): void {
  const { check, end } = ctx;
  const world = ctx.world as CorrectionWorld;
  check(world.providerCalls === 0, `no request reaches the provider outside the chart's model calls, got ${world.providerCalls}`);
  expectCorrection(ctx, (expected) => {
    if (!end) return;
    const got = world.received;
    check(got !== undefined, 'the client received an answer');
    if (!got) return;
    if (expected.ok) {
      check(got.status === 200, `HTTP 200 with the stored report, got ${got.status}`);
      check(JSON.stringify(got.body) === JSON.stringify({ productionId: expected.productionId, report: expected.report }), 'the client receives the stored report and its id');
    } else {
      check(got.status === 500 && JSON.stringify(got.body) === JSON.stringify({ error: 'correction_failed' }), `HTTP 500 correction_failed, got ${got.status} ${JSON.stringify(got.body)}`);
    }
  });
}

describe('correction model through POST /corrections/ee', () => {
  it('replays every generated path as an HTTP request; the oracle reads what the client received', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 'correction',
      machine: correctionMachine,
      variants,
      events: samples,
      oracle: expectCorrectionOverHttp,
      project,
      start: async ({ machine, input, clock, inspect }) => {
        const given = input as CorrectionInput;
        // The configuration the engine builds the variant's input from.
        const env = makeContext(
          {
            CORRECTION_MODEL: given.model,
            CORRECTION_MAX_TOKENS: String(given.maxTokens),
            CORRECTION_TIMEOUT_MS: String(given.gradingDeadlineMs + 3_000),
            CORRECTION_ATTEMPT_TIMEOUT_MS: String(given.call.attemptTimeoutMs),
            LLM_MAX_RETRIES: String(given.call.maxRetries),
            LLM_BACKOFF_BASE_MS: String(given.call.backoffBaseMs),
            LLM_RETRY_AFTER_CAP_MS: String(given.call.retryAfterCapMs),
          },
          { clock },
        );
        const { ctx, config } = env;
        ctx.runtime.onInspect(inspect);
        const world: CorrectionWorld = { aborted: false, providerCalls: 0 };
        // Named "offline", the engine asks no model (input.offline), as the variant says.
        const provider = { ...recordingProvider(() => ({ text: 'never' })), name: given.offline ? ('offline' as const) : ('openai' as const) };
        const generate = provider.generate.bind(provider);
        provider.generate = (req) => {
          world.providerCalls++;
          return generate(req);
        };
        const service = new CorrectionEngine({ db: ctx.db, runtime: ctx.runtime, providers: registryOf(provider), config, logger: ctx.logger, provideChart: () => machine as AnyStateMachine });
        const app = express();
        app.use(correctionsHttp(ctx, service));
        const server: Server = app.listen(0, '127.0.0.1');
        await new Promise((r) => server.once('listening', r));
        const token = await createAuth(config).mintToken({ sub: 'cand-model', plan: 'free' });
        const abort = new AbortController();
        const { production } = given;
        const response = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/corrections/ee`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ tache: production.tache, consigne: production.consigne, texte: production.epreuve === 'EE' ? production.texte : '' }),
          signal: abort.signal,
        }).then(
          async (res) => {
            world.received = { status: res.status, body: await res.json() };
          },
          () => {
            world.aborted = true;
          },
        );
        // The request's conversation starts once it is authenticated and validated.
        const entry = ctx.runtime.list().find((e) => e.systemId.startsWith('correction:'));
        const actor: AnyActorRef =
          entry
            ? (ctx.runtime.get(entry.systemId) as AnyActorRef)
            : await new Promise<AnyActorRef>((resolve, reject) => {
                const off = ctx.runtime.onInspect((ev: InspectionEvent) => {
                  const ref = ev.actorRef as AnyActorRef;
                  if (ev.type === '@xstate.actor' && ((ev.actorRef as { options?: { systemId?: string } }).options?.systemId ?? '').startsWith('correction:')) {
                    off();
                    resolve(ref);
                  }
                });
                // Answered before any conversation started: the request never reached the engine.
                void response.then(() => {
                  off();
                  reject(new Error(`POST /corrections/ee started no conversation: ${JSON.stringify(world.received)}`));
                });
              });
        const stopped = () =>
          new Promise<void>((resolve) => {
            const off = ctx.runtime.onInspect((ev: InspectionEvent) => {
              if (ev.type === '@xstate.snapshot' && ev.actorRef === actor && (ev.snapshot as { status: string }).status !== 'active') {
                off();
                resolve();
              }
            });
          });
        return {
          actor,
          world,
          send: (event: EventObject) => void actor.send(event),
          // Once the request ended, the answer is on its way to the client: wait for it.
          sync: async () => {
            if ((actor.getSnapshot() as { status: string }).status === 'done') await response;
          },
          // A request still running is given up by its client (the edge aborts it and the engine
          // stops its conversation), and waited for before the context closes.
          stop: async () => {
            if ((actor.getSnapshot() as { status: string }).status === 'active') {
              const gone = stopped();
              abort.abort();
              await gone;
            }
            await response;
            server.closeAllConnections();
            await new Promise((r) => server.close(r));
            env.close();
          },
        };
      },
    });
    expect(failures.length, JSON.stringify(failures.slice(0, 3), null, 2)).toBe(0);
    expect(paths.length).toBeGreaterThan(10);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(paths.length * 5);
  }, 120_000);
});
