import { fromPromise } from 'xstate';
import { echoMachine, type EchoReply } from '../../machines/echo.js';
import type { EchoStore } from './echoStore.js';

/** The echo chart with its actors: the count in the store, and the reply to this session's client. */
export function wireEcho(store: EchoStore, send: (reply: EchoReply) => void) {
  return echoMachine.provide({
    actors: { countEcho: fromPromise(() => store.count()) },
    actions: { reply: (_, reply) => send(reply) },
  });
}
