// A manifest's "needs": UR 2026's adapters need a Level Zero loader >= 1.25. The plan asks the loader's sources for
// one that has it, before anything is fetched; when none does, it goes back to a UR that does not need it, and stops
// naming both versions only when the UR is pinned.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src/platform/types.js';
import { validateManifest, type ComponentManifest } from '../../src/manifest/schema.js';
import { makePlan } from '../../src/plan/plan.js';
import { planOptions, type PlanInput } from '../support/plan-options.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { openGateway } from '../../src/index/gateway.js';

// Planned for Windows from Linux: nothing is executed, and no runtime library of this machine takes part.
const host: Host = { platform: 'win-x64', os: 'win32', arch: 'x64', native: false };
const SHA = 'a'.repeat(64);
const requests: string[] = [];
let server: http.Server;
let base: string;

const record = (name: string, version: string): [string, object] => [`${name}-${version}-h0_0.conda`, { name, version, build: 'h0_0', build_number: 0, depends: [], sha256: SHA, size: 10 }];
/** `/debian`: the old loader only; `/newer`: a loader that has the 1.25 functions; `/ur`: UR 2025 and 2026. */
const CHANNELS: Record<string, [string, object][]> = {
  debian: [record('level-zero', '1.8.12')],
  newer: [record('level-zero', '1.26.0')],
  ur: [record('intel-cmplr-lib-ur', '2026.1.0'), record('intel-cmplr-lib-ur', '2025.3.2')],
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '';
    requests.push(url);
    const m = /^\/(\w+)\/(win-64|noarch)\/repodata\.json$/.exec(url);
    const channel = m && CHANNELS[m[1]!];
    if (!channel) return void res.writeHead(404).end();
    const packages = m[2] === 'win-64' ? Object.fromEntries(channel) : {};
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ info: { subdir: m[2] }, packages: {}, 'packages.conda': packages, repodata_version: 1 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const map = [{ from: 'Library/', to: '' }];
const NEED = { versions: '>=2026', component: 'level-zero', version: '>=1.25', why: 'its Level Zero adapters call zeDeviceSynchronize, which the loader exports from 1.25.0 on' };

/** The loader from the `channels` in order, each a source of its own (the first is the manifest's first choice). */
function manifests(loaderChannels: string[]): ComponentManifest[] {
  const l0: ComponentManifest = {
    schema: 1, name: 'level-zero', summary: 'L0', features: [],
    platforms: { 'win-x64': { provides: [], sources: loaderChannels.map((c) => ({ kind: 'conda' as const, channels: [`${base}/${c}`], packages: ['level-zero'], map })) } },
  };
  const ur: ComponentManifest = {
    schema: 1, name: 'unified-runtime', summary: 'UR', features: [], needs: [NEED],
    platforms: { 'win-x64': { provides: [], sources: [{ kind: 'conda', channels: [`${base}/ur`], packages: ['intel-cmplr-lib-ur'], map }] } },
  };
  return [l0, ur];
}

function plan(loaderChannels: string[], o: Partial<PlanInput> = {}) {
  const opts = planOptions({ prefix: '/tmp/p', cacheDir: '/tmp/c', ...o });
  return makePlan(host, manifests(loaderChannels), opts, fakeDeps({ platform: 'linux' }), silentReporter, openGateway(fakeDeps(), { cacheDir: opts.cacheDir }));
}
const versions = (p: Awaited<ReturnType<typeof plan>>) => Object.fromEntries(p.components.map((c) => [c.name, c.version]));

describe('a component version that needs a newer version of another', () => {
  it('asks the loader\'s sources again for one that has it: the second source\'s 1.26.0 over the first\'s 1.8.12, and says why', async () => {
    const p = await plan(['debian', 'newer']);
    expect(versions(p)).toEqual({ 'level-zero': '1.26.0', 'unified-runtime': '2026.1.0' });
    const l0 = p.components.find((c) => c.name === 'level-zero')!;
    expect(l0.constraints).toEqual(['level-zero>=1.25']);
    expect(l0.notes).toContain(`level-zero 1.26.0: unified-runtime 2026.1.0 needs level-zero>=1.25 (${NEED.why})`);
  });

  it('goes back to the older UR when no source has such a loader, and says why in one line', async () => {
    requests.length = 0;
    const p = await plan(['debian']);
    expect(versions(p)).toEqual({ 'level-zero': '1.8.12', 'unified-runtime': '2025.3.2' });
    const ur = p.components.find((c) => c.name === 'unified-runtime')!;
    const line = 'unified-runtime 2025.3.2 from conda (2026.1.0 (conda): needs level-zero>=1.25; the newest reachable is 1.8.12 (conda))';
    expect(ur.choice).toEqual({ line, rejected: [{ candidate: '2026.1.0 (conda)', why: 'needs level-zero>=1.25; the newest reachable is 1.8.12 (conda)' }] });
    expect(ur.notes).toContain(line);
    expect(ur.constraints).toBeUndefined();
    expect(p.components.find((c) => c.name === 'level-zero')!.choice).toBeUndefined();
    expect(requests.filter((r) => r.endsWith('.conda'))).toEqual([]);
  });

  it('with UR 2026 pinned, stops before any download, naming both versions, why, the ways out and every candidate turned away', async () => {
    requests.length = 0;
    const err = (await plan(['debian'], { requires: ['unified-runtime==2026.1.0'] }).catch((e: unknown) => e)) as Error;
    expect(err).toMatchObject({
      code: 'RESOLUTION_CONFLICT',
      message: `unified-runtime 2026.1.0 needs level-zero >=1.25 (${NEED.why}); no reachable source has one: the level-zero the sources offer is 1.8.12 (conda ${base}/debian)`,
      hints: [
        "use a unified-runtime older than 2026: --require 'unified-runtime<2026'",
        'or a bundle made where a level-zero >=1.25 is reachable (xpu-setup bundle), or a channel that has one (--conda-channel)',
        `tried level-zero: conda ${base}/debian: newest level-zero in ${base}/debian (win-64) is 1.8.12, which does not meet level-zero>=1.25`,
        'tried unified-runtime 2026.1.0 (conda): needs level-zero>=1.25; the newest reachable is 1.8.12 (conda)',
        'nothing was downloaded',
      ],
      details: { rejected: { 'unified-runtime': [{ candidate: '2026.1.0 (conda)', why: 'needs level-zero>=1.25; the newest reachable is 1.8.12 (conda)' }], 'level-zero': [] } },
    });
    // Only indexes were read: no package.
    expect(requests.filter((r) => r.endsWith('.conda'))).toEqual([]);
  });

  it('a version outside the need keeps the loader the plan chose', async () => {
    const p = await plan(['debian'], { requires: ['unified-runtime<2026'] });
    expect(versions(p)).toEqual({ 'level-zero': '1.8.12', 'unified-runtime': '2025.3.2' });
  });

  it('a malformed need is refused naming the field', () => {
    expect(() => validateManifest('m.json', { ...manifests(['debian'])[1], needs: [{ versions: '2026', component: 'level-zero', version: '>=1.25', why: 'x' }] })).toThrow(
      /manifest m\.json: "needs" must be a list of/,
    );
  });
});
