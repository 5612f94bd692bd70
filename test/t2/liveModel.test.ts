import { afterEach, describe, expect, it } from 'vitest';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { LIVE_MODEL_DEVELOPER, LIVE_MODEL_VERTEX, liveModelFor } from '../../actors/llm/liveModel.js';
import { LiveClient, startT2, type T2Env } from './support.js';

/**
 * The Gemini Live default depends on the backend: the spec's `gemini-live-2.5-flash-native-audio`
 * is a Vertex AI id that a Developer API key cannot open. Through the real SDK and the wire fake.
 */
let env: T2Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const cfg = (env: Record<string, string>) => loadPalabreConfig({ env, dotenvPath: null, file: '' });

describe('Gemini Live model per backend', () => {
  it('defaults to a Developer API id, to the Vertex id with GEMINI_VERTEX, and T2_LIVE_MODEL wins over both', () => {
    expect(liveModelFor(cfg({}))).toBe(LIVE_MODEL_DEVELOPER);
    expect(LIVE_MODEL_DEVELOPER).toBe('gemini-3.8-live');
    expect(liveModelFor(cfg({ GEMINI_VERTEX: 'true' }))).toBe(LIVE_MODEL_VERTEX);
    expect(LIVE_MODEL_VERTEX).toBe('gemini-live-2.5-flash-native-audio');
    expect(liveModelFor(cfg({ GEMINI_VERTEX: 'true', T2_LIVE_MODEL: 'my-live' }))).toBe('my-live');
    expect(liveModelFor(cfg({ T2_LIVE_MODEL: 'gemini-live-2.5-flash-native-audio' }))).toBe('gemini-live-2.5-flash-native-audio');
  });

  it('a plain GEMINI_API_KEY (Developer API) opens the session with the Developer id', async () => {
    env = await startT2({ gemini: true, geminiFromConfig: true });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'garderie' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const conn = env.fake!.connections[0]!;
    expect(conn.apiVersion).toBe('v1beta');
    expect(conn.setup!.model).toBe(`models/${LIVE_MODEL_DEVELOPER}`);
    c.ws.close();
  });

  it('GEMINI_VERTEX=true sends the Vertex id on the Vertex AI route', async () => {
    env = await startT2({ gemini: true, geminiFromConfig: true, env: { GEMINI_VERTEX: 'true' } });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'garderie' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const conn = env.fake!.connections[0]!;
    expect(conn.apiVersion).toBe('v1');
    expect(conn.key).toBe('config-key');
    expect(String(conn.setup!.model)).toMatch(new RegExp(`models/${LIVE_MODEL_VERTEX}$`));
    c.ws.close();
  });
});
