import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import { startServer } from '../../actors/serve.js';
import { createAuth } from '../../core/auth.js';
import { skullSurface } from '../../actors/skull/surface.js';
import { docsSurface } from '../../actors/docs/surface.js';
import { t2Surface } from '../../actors/t2/surface.js';
import { Listener } from '../skull/support.js';
import { LiveClient, type T2Env } from '../t2/support.js';

/**
 * `palabre serve` in process with its offline providers, driven through its real edges: a Skull
 * request over MQTT, a docs question over HTTP, a T2 text session over the WebSocket (whose end
 * also starts a correction). Returns once the server stopped, its journal written to `data`.
 * Used by the journal's tests and by scripts/record-journal-fixtures.ts.
 */
export async function driveSurfaces(opts: { data: string; corpus: string; prefix: string; env?: Record<string, string> }): Promise<void> {
  const config = loadPalabreConfig({
    env: {
      DATA_DIR: opts.data, CORPUS_DIR: opts.corpus, PORT: '0', MQTT_EMBEDDED_PORT: '0', LOG_LEVEL: 'silent',
      CHAT_PROVIDER: 'offline', SKULL_PROVIDER: 'offline', SKULL_TOPIC_PREFIX: opts.prefix, SKULL_PROMPT_FILE: 'prompts/skull/prompt.txt',
      JWT_SECRET: 'test-secret-test-secret-0123456789',
      ...opts.env,
    },
    dotenvPath: null,
    file: '',
  });
  const running = await startServer({ config, logger: silentLogger(), surfaces: [async () => skullSurface, async () => docsSurface, async () => t2Surface] });
  try {
    const base = running.ctx.publicUrl.replace(/\/$/, '');

    // Skull: one request over the MQTT edge, its reply.
    const mqtt = await Listener.open(running.ctx.mqtt.url, [`${opts.prefix}/ai/response`]);
    await mqtt.publish(`${opts.prefix}/ai/request`, JSON.stringify({ text: 'Raconte-moi une blague sur les pirates' }));
    await mqtt.waitFor(`${opts.prefix}/ai/response`, 1, 10_000);
    await mqtt.client.endAsync();

    // Docs: one question over HTTP.
    const res = await fetch(`${base}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Progress token types?' }) });
    if (res.status !== 200) throw new Error(`docs chat answered ${res.status}`);

    // T2: a text session over the WebSocket edge, two exchanges, then the candidate leaves.
    const token = await createAuth(config).mintToken({ sub: 'cand-journal', plan: 'premium' });
    const c = await LiveClient.open({ wsUrl: base.replace(/^http/, 'ws') } as T2Env, { token, sujet: 'location-voiture' });
    await c.until(() => c.states().includes('listening'), 'listening', 20_000);
    const finals = () => c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final).length;
    for (const q of ['Bonjour, je voudrais louer une voiture pour une semaine, quel est le prix ?', 'Est-ce que l’assurance est incluse ?']) {
      const before = finals();
      c.send({ type: 'text', text: q });
      await c.until(() => finals() > before, `answer to ${q}`, 20_000);
    }
    c.ws.close(1000);
    await c.closed;
  } finally {
    // The journal is written when conversations end and when the process stops.
    await running.shutdown('test');
  }
}
