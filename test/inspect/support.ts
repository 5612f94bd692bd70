import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import type { RunningServer } from '../../core/server.js';
import { startServer } from '../../actors/serve.js';
import type { SurfaceLoader } from '../../core/surfaceContract.js';

export const ADMIN_PASSWORD = 'inspector-password-42';

export interface InspectServer {
  url: string;
  server: RunningServer;
  close(): Promise<void>;
}

/** `palabre serve` in-process on free ports, with the given surfaces and an admin password. */
export async function startInspectServer(surfaces: readonly SurfaceLoader[], env: Record<string, string> = {}): Promise<InspectServer> {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-inspect-'));
  const config = loadPalabreConfig({
    env: { PORT: '0', MQTT_EMBEDDED_PORT: '0', DATA_DIR: dir, ADMIN_PASSWORD, SESSION_SECRET: 'inspect-session-secret-0123456789', LOG_LEVEL: 'silent', LLM_PROVIDER: 'offline', ...env },
    dotenvPath: null,
  });
  const server = await startServer({ config, logger: silentLogger(), surfaces });
  const { port } = server.http.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    async close() {
      await server.shutdown('test');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Logs in through the real form (CSRF cookie + field) and returns the admin cookie header. */
export async function adminLogin(url: string, password = ADMIN_PASSWORD): Promise<string> {
  const page = await fetch(`${url}/admin/login?next=/inspect`);
  const loginCookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const res = await fetch(`${url}/admin/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: loginCookie },
    body: new URLSearchParams({ password, _csrf: csrf, next: '/inspect' }).toString(),
  });
  const admin = res.headers.getSetCookie().find((c) => c.startsWith('palabre_admin='));
  if (res.status !== 303 || !admin) throw new Error(`admin login failed: ${res.status}`);
  return admin.split(';')[0]!;
}
