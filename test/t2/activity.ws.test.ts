import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createMachine } from 'xstate';
import { silentLogger } from '../../core/log.js';
import { Runtime } from '../../core/runtime.js';
import { attachT2LiveSocket } from '../../transports/ws/t2liveSocket.js';
import { useBareServer } from './bareServerSuite.js';

/**
 * The T2 socket's `client.activity` (idle detection): one per second of frames, delivered to the
 * session's chart after the loop's reads, never before the audio of the frame that triggered it.
 */
const bare = useBareServer();

describe('T2 socket activity', () => {
  it('reaches the chart once for a run of frames, after their audio has gone to the pipe', async () => {
    const log: string[] = [];
    // The session's chart, reduced to what it is told; its audio path, to what it forwards.
    const chart = createMachine({ on: { '*': { actions: ({ event }) => log.push(event.type) } } });
    const socket = attachT2LiveSocket({
      server: bare.server,
      runtime: new Runtime(),
      logger: silentLogger(),
      maxFrameBytes: 64_000,
      maxSessions: 2,
      defaultMode: 'audio',
      wire: () => ({
        logic: chart,
        input: {},
        audio: {
          attachClient: () => undefined,
          candidate: () => {
            log.push('audio');
            return true;
          },
        },
      }),
    });
    const ws = new WebSocket(`ws://127.0.0.1:${bare.port}/t2/live?sujet=club-de-sport`);
    await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
    try {
      const chunk = Buffer.alloc(640, 1);
      for (let i = 0; i < 3; i++) ws.send(chunk, { binary: true });
      const deadline = Date.now() + 5000;
      while (log.filter((e) => e === 'audio').length < 3 || !log.includes('client.activity')) {
        if (Date.now() > deadline) throw new Error(`timed out: ${log.join(', ')}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      // The frames read together all reach the pipe first (one read or several: the first one's does).
      const seen = log.filter((e) => e === 'audio' || e === 'client.activity');
      expect(seen[0]).toBe('audio');
      expect(seen.filter((e) => e === 'client.activity')).toHaveLength(1);
    } finally {
      ws.terminate();
      await socket.close();
    }
  });
});
