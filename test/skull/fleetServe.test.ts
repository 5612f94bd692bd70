import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import { startServer } from '../../actors/serve.js';
import { skullSurface } from '../../actors/skull/surface.js';
import { Listener } from './support.js';

/** `palabre serve` with SKULL_FLEET_PREFIX: the Skull surface serves a fleet on the process's broker. */
const dir = mkdtempSync(join(tmpdir(), 'palabre-fleet-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('palabre serve with a Skull fleet', () => {
  it('answers two devices under the prefix (offline provider) and reports the fleet in /healthz', async () => {
    const config = loadPalabreConfig({
      env: { PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: join(dir, 'data'), SURFACES: 'skull', SKULL_PROVIDER: 'offline', SKULL_FLEET_PREFIX: 'ecole', SKULL_FLEET_INSTANCE: 'serve-1', SKULL_HEALTH_INTERVAL_MS: '0' },
      dotenvPath: null,
      file: '',
    });
    const server = await startServer({ config, logger: silentLogger(), surfaces: [async () => skullSurface] });
    const l = await Listener.open(server.ctx.mqtt.url, ['ecole/+/ai/#']);
    try {
      await l.publish('ecole/s1/ai/request', JSON.stringify({ text: 'Dis une courte devinette.' }));
      await l.publish('ecole/s2/ai/request', JSON.stringify({ text: 'Dis une courte devinette.' }));
      expect((await l.waitFor('ecole/s1/ai/usage'))[0]!.model).toBe('offline');
      await l.waitFor('ecole/s2/ai/usage');
      const health = (await (await fetch(`${server.ctx.publicUrl}/healthz`)).json()) as { surfaces?: Record<string, unknown> } & Record<string, unknown>;
      expect(JSON.stringify(health)).toContain('"fleet":"ecole"');
      expect(JSON.stringify(health)).toContain('"live_actors":2');
    } finally {
      await l.close();
      await server.shutdown('test');
    }
  });
});
