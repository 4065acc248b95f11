// The doctor's network check with the real reach() (real-deps' HTTP client) against servers and proxies on 127.0.0.1.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { runDoctor } from '../../src/doctor/index.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { deadPort, startFaultyServer, startForwardProxy, type FaultyServer } from '../support/faulty-server.js';

let srv: FaultyServer;
// An empty prefix of the test's own: the check asks the given indexes, never those of a default prefix on this machine.
let prefix: string;
beforeAll(async () => {
  srv = await startFaultyServer();
  prefix = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-doctor-network-'));
});
afterAll(async () => {
  await srv.close();
  await fs.rm(prefix, { recursive: true, force: true });
});

async function networkCheck(env: Record<string, string>, urls: string[]) {
  const r = await runDoctor(fakeDeps({ env, reach: realDeps().reach }), { only: ['network'], prefix, indexes: async () => urls });
  return r.checks.find((c) => c.id === 'network')!;
}

describe('doctor network check, real reach()', () => {
  it('a live index is ok (any HTTP answer counts)', async () => {
    const c = await networkCheck({}, [`${srv.url}/conda-forge/`]);
    expect(c).toMatchObject({ status: 'ok', message: `1 reachable: ${srv.url}/conda-forge/` });
  });

  it('a dead index warns, naming it and the refused connection', async () => {
    const port = await deadPort();
    const c = await networkCheck({}, [`${srv.url}/`, `http://127.0.0.1:${port}/`]);
    expect(c.status).toBe('warn');
    expect(c.message).toBe(`cannot reach http://127.0.0.1:${port}/ (ECONNREFUSED): setup cannot download from there`);
    expect(c.fix).toMatch(/set HTTPS_PROXY/);
  });

  it('a working proxy from the injected environment is used', async () => {
    const proxy = await startForwardProxy();
    try {
      const c = await networkCheck({ HTTP_PROXY: proxy.url }, [`${srv.url}/`]);
      expect(c.status).toBe('ok');
      expect(proxy.seen).toEqual([`HEAD ${srv.url}/`]);
    } finally {
      await proxy.close();
    }
  });

  it('a dead proxy is named, not the index behind it', async () => {
    const port = await deadPort();
    const c = await networkCheck({ HTTP_PROXY: `http://127.0.0.1:${port}` }, [`${srv.url}/`]);
    expect(c.status).toBe('warn');
    expect(c.message).toBe(`cannot reach ${srv.url}/ (proxy http://127.0.0.1:${port} ECONNREFUSED): setup cannot download from there`);
    expect(c.fix).toMatch(/check HTTPS_PROXY and NO_PROXY/);
  });
});
