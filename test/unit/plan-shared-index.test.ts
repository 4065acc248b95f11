// Many components from one conda channel: the plan reads each repodata document once, not once per component.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src/platform/types.js';
import type { ComponentManifest } from '../../src/manifest/schema.js';
import { makePlan } from '../../src/plan/plan.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { openGateway } from '../../src/index/gateway.js';
import { planOptions } from '../support/plan-options.js';

const N = 16;
const host: Host = { platform: 'win-x64', os: 'win32', arch: 'x64', native: false };
const requests: string[] = [];
let server: http.Server;
let channel: string;

/** win-64 repodata listing pkg-0 ... pkg-15, one version each; no .zst and no noarch, so the plain document is read. */
function repodata(): string {
  const packages: Record<string, unknown> = {};
  for (let i = 0; i < N; i++) {
    packages[`pkg-${i}-1.0-h0_0.conda`] = { name: `pkg-${i}`, version: '1.0', build: 'h0_0', build_number: 0, sha256: String(i % 10).repeat(64), size: 10 };
  }
  return JSON.stringify({ info: { subdir: 'win-64' }, packages: {}, 'packages.conda': packages, repodata_version: 1 });
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/ch/win-64/repodata.json') res.writeHead(200, { 'content-type': 'application/json' }).end(repodata());
    else if (/^\/two\/(linux-64|win-64|noarch)\/repodata\.json$/.test(req.url ?? '')) res.writeHead(200, { 'content-type': 'application/json' }).end(repodata());
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  channel = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ch`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function manifest(i: number): ComponentManifest {
  return {
    schema: 1, name: `c${i}`, summary: `component ${i}`, features: [],
    platforms: { 'win-x64': { provides: [], sources: [{ kind: 'conda', channels: [channel], packages: [`pkg-${i}`], map: [{ from: 'Library/', to: '' }] }] } },
  };
}

describe('planning many components from one channel', () => {
  it(`plans ${N} components with one read of each repodata document`, async () => {
    const ms = Array.from({ length: N }, (_, i) => manifest(i));
    const p = await makePlan(host, ms, planOptions({ prefix: '/tmp/p', cacheDir: '/tmp/c' }), fakeDeps({ platform: 'linux' }), silentReporter, openGateway(fakeDeps(), { cacheDir: '/tmp/c' }));
    expect(p.components.map((c) => [c.name, c.status, c.archives[0]?.filename])).toEqual(ms.map((m, i) => [m.name, 'planned', `pkg-${i}-1.0-h0_0.conda`]));
    const reads = (u: string) => requests.filter((r) => r === u).length;
    expect(reads('/ch/win-64/repodata.json.zst')).toBe(1);
    expect(reads('/ch/win-64/repodata.json')).toBe(1);
    expect(reads('/ch/noarch/repodata.json.zst')).toBe(1);
    expect(reads('/ch/noarch/repodata.json')).toBe(1);
  });
});

describe('planning two platforms in one run (bundle, lock)', () => {
  it('reads the shared noarch subdir once for both', async () => {
    const two = channel.replace(/\/ch$/, '/two');
    const m: ComponentManifest = {
      schema: 1, name: 'c', summary: 'one component, both platforms', features: [],
      platforms: {
        'linux-x64': { provides: [], sources: [{ kind: 'conda', channels: [two], packages: ['pkg-1'], map: [{ from: '', to: '' }] }] },
        'win-x64': { provides: [], sources: [{ kind: 'conda', channels: [two], packages: ['pkg-1'], map: [{ from: 'Library/', to: '' }] }] },
      },
    };
    const deps = fakeDeps({ platform: 'linux' });
    const opts = planOptions({ prefix: '/tmp/p', cacheDir: '' });
    const linux: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: false };
    requests.length = 0;
    // One gateway for the run, handed to both plans.
    const gateway = openGateway(deps);
    const plans = await Promise.all([makePlan(linux, [m], opts, deps, silentReporter, gateway), makePlan(host, [m], opts, deps, silentReporter, gateway)]);
    expect(plans.map((p) => p.components[0]!.status)).toEqual(['planned', 'planned']);
    const reads = (u: string) => requests.filter((r) => r === u).length;
    expect([reads('/two/noarch/repodata.json'), reads('/two/linux-64/repodata.json'), reads('/two/win-64/repodata.json')]).toEqual([1, 1, 1]);
  });
});
