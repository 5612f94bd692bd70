import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyActorRef, AnyStateMachine, EventObject, InspectionEvent } from 'xstate';
import { createDocsAssistant, docHref, FAILED_ANSWERS } from '../../actors/docs/assistant.js';
import { silentLogger } from '../../core/log.js';
import { Runtime } from '../../core/runtime.js';
import { chatMachine, type ChatInput } from '../../machines/chat.js';
import { OUT_OF_SCOPE_ANSWERS } from '../../prompts/docs/chatPrompt.js';
import { mountDocsApi } from '../../transports/http/docsApi.js';
import { runModel, type OracleContext } from '../harness/index.js';
import { expectChat, project, samples, variants } from './chatModelSpec.js';
import { makeCorpus, recordingProvider, registryOf, testConfig } from './fixtures.js';

/**
 * The `chat` paths replayed through the real wiring: each question is a `POST /api/chat` on a real
 * socket, parsed by the docs API (transports/http/docsApi.ts), answered by the real assistant
 * (actors/docs/assistant.ts: its input built from the request, the conversation run in the
 * process's actor system, the answer shaped for the client); only the chart's invoked actors
 * (retrieve, judge, generate) are the harness's, handed in through `provideChart`. `chat.cancel`
 * is the client going away: the request is aborted and the API cancels the question. The oracle
 * is the bare chart's plus what the HTTP client received.
 */
interface Received {
  status: number;
  body: { state: string; answer: string; confidence: string; outOfScope: boolean; sources: Array<{ path: string; section: string; href: string; lang: string }>; provider: string };
}
interface ChatWorld {
  received?: Received;
  aborted: boolean;
  /** Requests that reached the provider itself (never: the harness stands in for every model call). */
  providerCalls: number;
}

let root: string;
beforeAll(() => {
  root = makeCorpus();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function expectChatOverHttp(ctx: OracleContext): void {
  const { check, end, controls } = ctx;
  const world = ctx.world as ChatWorld;
  const input = ctx.input as ChatInput;
  check(world.providerCalls === 0, `no request reaches the provider outside the chart's model calls, got ${world.providerCalls}`);
  expectChat(ctx, (expected) => {
    if (!end) return;
    if (expected.cancelled) {
      check(world.aborted && world.received === undefined, 'a client that went away receives nothing');
      return;
    }
    const got = world.received;
    check(got !== undefined, 'the client received an answer');
    if (!got) return;
    check(got.status === (expected.state === 'failed' ? 503 : 200), `HTTP ${expected.state === 'failed' ? 503 : 200} for ${expected.state}, got ${got.status}`);
    check(got.body.state === expected.state, `the client reads state ${expected.state}, got ${got.body.state}`);
    check(got.body.outOfScope === (expected.state === 'outOfScope'), `outOfScope ${expected.state === 'outOfScope'}, got ${got.body.outOfScope}`);
    const answer = expected.state === 'failed' ? FAILED_ANSWERS[input.lang] : expected.state === 'outOfScope' ? OUT_OF_SCOPE_ANSWERS[input.lang] : expected.answer;
    check(got.body.answer === answer, `the client reads the answer ${JSON.stringify(answer)}, got ${JSON.stringify(got.body.answer)}`);
    if (expected.confidence !== undefined) check(got.body.confidence === expected.confidence, `the client reads confidence ${expected.confidence}, got ${got.body.confidence}`);
    const sources = expected.state === 'answered' ? (expected.cited ?? []).map((id) => expected.passages.get(id)!).map((p) => ({ path: p.path, section: p.section, href: docHref(p.path, p.anchor), lang: p.lang })) : [];
    check(JSON.stringify(got.body.sources) === JSON.stringify(sources), `sources in order ${JSON.stringify(sources.map((s) => s.href))}, got ${JSON.stringify(got.body.sources.map((s) => s.href))}`);
    // A question refused before the model (by the guard, or by a relevance verdict of "none") costs no answer call.
    if (expected.state === 'outOfScope' && expected.confidence === 'high') check(controls.all('generate').length === 0, 'a refused question makes no model call');
  });
}

describe('chat model through the HTTP API', () => {
  it('replays every generated path as POST /api/chat; the oracle reads what the client received', async () => {
    const { failures, paths, coverage } = await runModel({
      name: 'chat',
      machine: chatMachine,
      variants,
      events: samples,
      oracle: expectChatOverHttp,
      project,
      start: async ({ machine, input, clock, inspect }) => {
        const given = input as ChatInput;
        const runtime = new Runtime({ clock });
        runtime.onInspect(inspect);
        const world: ChatWorld = { aborted: false, providerCalls: 0 };
        // Named "offline", the assistant makes no relevance call (canJudge false), as the variant says.
        const provider = { ...recordingProvider(() => ({ text: 'never' })), name: given.canJudge ? ('anthropic' as const) : ('offline' as const) };
        const generate = provider.generate.bind(provider);
        provider.generate = (req) => {
          world.providerCalls++;
          return generate(req);
        };
        const config = testConfig({ CORPUS_DIR: root, CHAT_PROVIDER: 'offline', EMBEDDINGS_PROVIDER: 'none', CHAT_MODEL: given.settings.model, CHAT_CLAIM_CHECK: given.canVerify ? 'on' : 'off' });
        const assistant = createDocsAssistant({ config, providers: registryOf(provider), runtime, persist: false, logger: silentLogger(), provideChart: () => machine as AnyStateMachine });
        const app = express();
        mountDocsApi(app, { assistant, settings: () => given.settings, logger: silentLogger() });
        const server: Server = app.listen(0, '127.0.0.1');
        await new Promise((r) => server.once('listening', r));
        const abort = new AbortController();
        const response = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question: given.question, history: given.history }),
          signal: abort.signal,
        }).then(
          async (res) => {
            world.received = { status: res.status, body: (await res.json()) as Received['body'] };
          },
          () => {
            world.aborted = true;
          },
        );
        // The question's conversation starts once the request is parsed.
        const entry = runtime.list().find((e) => e.systemId.startsWith('chat:'));
        const actor: AnyActorRef =
          entry
            ? (runtime.get(entry.systemId) as AnyActorRef)
            : await new Promise<AnyActorRef>((resolve, reject) => {
                const off = runtime.onInspect((ev: InspectionEvent) => {
                  const ref = ev.actorRef as AnyActorRef;
                  if (ev.type === '@xstate.actor' && ((ev.actorRef as { options?: { systemId?: string } }).options?.systemId ?? '').startsWith('chat:')) {
                    off();
                    resolve(ref);
                  }
                });
                // Answered before any conversation started: the request never reached the engine.
                void response.then(() => {
                  off();
                  reject(new Error(`POST /api/chat started no conversation: ${JSON.stringify(world.received)}`));
                });
              });
        const delivered = (type: string) =>
          new Promise<void>((resolve) => {
            const off = runtime.onInspect((ev: InspectionEvent) => {
              if (ev.type === '@xstate.event' && ev.actorRef === actor && ev.event.type === type) {
                off();
                resolve();
              }
            });
          });
        return {
          actor,
          world,
          send: async (event: EventObject) => {
            if (event.type !== 'chat.cancel') return void actor.send(event);
            const arrived = delivered(event.type);
            abort.abort();
            await arrived;
          },
          // Once the question ended, the answer is on its way to the client: wait for it.
          sync: async () => {
            if ((actor.getSnapshot() as { status: string }).status === 'done') await response;
          },
          // A question still running is cancelled by the client going away (as a closed tab does),
          // and waited for, so that the actor system is not shut down under it.
          stop: async () => {
            if ((actor.getSnapshot() as { status: string }).status === 'active') {
              const arrived = delivered('chat.cancel');
              abort.abort();
              await arrived;
            }
            await response;
            runtime.shutdown();
            server.closeAllConnections();
            await new Promise((r) => server.close(r));
          },
        };
      },
    });
    expect(failures.length, JSON.stringify(failures.slice(0, 3), null, 2)).toBe(0);
    expect(paths.length).toBeGreaterThan(5);
    expect(coverage.states.uncovered).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.oracleChecks).toBeGreaterThan(paths.length * 5);
  }, 120_000);
});
