// A source the user named (--index-url, --conda-channel) replaces the manifest's default of its kind: when it cannot
// be read the plan fails naming it, and when it answers "not here" the next source kind answers, never the default.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src/platform/types.js';
import type { ComponentManifest, SourceSpec } from '../../src/manifest/schema.js';
import { makePlan } from '../../src/plan/plan.js';
import { planOptions, type PlanInput } from '../support/plan-options.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { deadPort } from '../support/faulty-server.js';
import { openGateway } from '../../src/index/gateway.js';

// Planning for Windows from Linux: nothing is executed, and the wheel and conda subdir are fixed (win_amd64, win-64).
const host: Host = { platform: 'win-x64', os: 'win32', arch: 'x64', native: false };
const SHA = 'a'.repeat(64);
const WHEEL = 'intel_cmplr_lib_ur-2025.2.1-py2.py3-none-win_amd64.whl';

const requests: string[] = [];
let server: http.Server;
let base: string;

/**
 * `/simple/`: a PEP 503 index with the UR wheel and its metadata file; `/empty/`: an index that knows no project; `/conda/`: a channel
 * with the UR package (the manifest's default); `/other/`: a channel without it.
 */
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '';
    requests.push(url);
    if (url === '/simple/intel-cmplr-lib-ur/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="/files/${WHEEL}#sha256=${SHA}" data-core-metadata="true">${WHEEL}</a>\n`);
    } else if (url === '/yanked/intel-cmplr-lib-ur/' || url === '/allyanked/intel-cmplr-lib-ur/') {
      // PEP 592: the newest release withdrawn, with its reason; /yanked/ keeps the one before it.
      const yanked = WHEEL.replace('2025.2.1', '2025.3.0');
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<a href="/files/${yanked}#sha256=${SHA}" data-yanked="broken loader, use 2025.3.1">${yanked}</a>\n` +
          (url.startsWith('/yanked/') ? `<a href="/files/${WHEEL}#sha256=${SHA}" data-core-metadata="true">${WHEEL}</a>\n` : ''),
      );
    } else if (url === `/files/${WHEEL}.metadata`) {
      res.writeHead(200).end('Metadata-Version: 2.1\nName: intel-cmplr-lib-ur\nVersion: 2025.2.1\n\n');
    } else if (url === '/pinned/win-64/repodata.json') {
      // The UR record pins a UMF build the channel does not have: the index answers, its packages do not fit together.
      const packages = {
        'intel-cmplr-lib-ur-2025.3.2-h0_0.conda': { name: 'intel-cmplr-lib-ur', version: '2025.3.2', build: 'h0_0', build_number: 0, depends: ['umf ==1.0.3 h1_0'], sha256: SHA, size: 10 },
        'umf-1.0.3-h2_0.conda': { name: 'umf', version: '1.0.3', build: 'h2_0', build_number: 0, depends: [], sha256: SHA, size: 10 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ info: { subdir: 'win-64' }, packages: {}, 'packages.conda': packages, repodata_version: 1 }));
    } else if (url === '/older/win-64/repodata.json') {
      // The newest UR pins a UMF build the channel lacks; the one before pins one it has.
      const packages = {
        'intel-cmplr-lib-ur-2025.3.2-h0_0.conda': { name: 'intel-cmplr-lib-ur', version: '2025.3.2', build: 'h0_0', build_number: 0, depends: ['umf ==1.0.3 h1_0'], sha256: SHA, size: 10 },
        'intel-cmplr-lib-ur-2025.3.1-h0_0.conda': { name: 'intel-cmplr-lib-ur', version: '2025.3.1', build: 'h0_0', build_number: 0, depends: ['umf ==1.0.2 h2_0'], sha256: SHA, size: 10 },
        'umf-1.0.3-h2_0.conda': { name: 'umf', version: '1.0.3', build: 'h2_0', build_number: 0, depends: [], sha256: SHA, size: 10 },
        'umf-1.0.2-h2_0.conda': { name: 'umf', version: '1.0.2', build: 'h2_0', build_number: 0, depends: [], sha256: SHA, size: 10 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ info: { subdir: 'win-64' }, packages: {}, 'packages.conda': packages, repodata_version: 1 }));
    } else if (url === '/nosha/win-64/repodata.json') {
      // Records as an old channel tool writes them: md5 only.
      const packages = {
        'intel-cmplr-lib-ur-2025.2.1-h0_0.conda': { name: 'intel-cmplr-lib-ur', version: '2025.2.1', build: 'h0_0', build_number: 0, md5: 'b'.repeat(32), size: 10 },
        'intel-cmplr-lib-ur-2025.2.0-h0_0.conda': { name: 'intel-cmplr-lib-ur', version: '2025.2.0', build: 'h0_0', build_number: 0, md5: 'c'.repeat(32), size: 10 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ info: { subdir: 'win-64' }, packages: {}, 'packages.conda': packages, repodata_version: 1 }));
    } else if (url === '/conda/win-64/repodata.json' || url === '/other/win-64/repodata.json') {
      const packages = url.startsWith('/conda/')
        ? { 'intel-cmplr-lib-ur-2025.2.1-h0_0.conda': { name: 'intel-cmplr-lib-ur', version: '2025.2.1', build: 'h0_0', build_number: 0, sha256: SHA, size: 10 } }
        : {};
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ info: { subdir: 'win-64' }, packages: {}, 'packages.conda': packages, repodata_version: 1 }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  requests.length = 0;
});

const map = [{ from: 'Library/', to: '' }];

/** Unified Runtime as the shipped manifest orders it: PyPI first, then a conda channel (here the local `/conda`). */
function ur(): ComponentManifest {
  const sources: SourceSpec[] = [
    { kind: 'pypi', packages: ['intel-cmplr-lib-ur'], map },
    { kind: 'conda', channels: [`${base}/conda`], packages: ['intel-cmplr-lib-ur'], map },
  ];
  return { schema: 1, name: 'unified-runtime', summary: 'UR', features: [], platforms: { 'win-x64': { provides: [{ path: 'include/ur_api.h', required: true }], sources } } };
}

function plan(o: Partial<PlanInput>) {
  const opts = planOptions({ prefix: '/tmp/p', cacheDir: '/tmp/c', components: ['unified-runtime'], ...o });
  return makePlan(host, [ur()], opts, fakeDeps({ platform: 'linux' }), silentReporter, openGateway(fakeDeps(), { cacheDir: opts.cacheDir }));
}

const askedConda = () => requests.filter((r) => r.startsWith('/conda/'));

describe('--index-url names the only PyPI index', () => {
  it('an index that serves the project: the plan takes it from there, not from the default PyPI', async () => {
    const p = await plan({ indexes: { pypi: [`${base}/simple/`] } });
    expect(p.components[0]).toMatchObject({ status: 'planned', source: 'pypi', origin: `${base}/simple/`, version: '2025.2.1' });
    expect(p.components[0]!.archives[0]!.url).toBe(`${base}/files/${WHEEL}`);
    expect(p.components[0]!.fallbackFrom).toBeUndefined();
    expect(askedConda()).toEqual([]);
  });

  it('an unreachable index fails the plan naming it: no fallback to the default PyPI or the conda channels', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}/simple/`;
    await expect(plan({ indexes: { pypi: [dead] } })).rejects.toMatchObject({
      code: 'SOURCE_FAILED',
      message: expect.stringContaining(`unified-runtime: the source you named failed: pypi ${dead}: `),
      details: { source: 'pypi', outcome: 'unreachable', namedBy: '--index-url' },
      hints: expect.arrayContaining(['xpu-setup never falls back from a source you named (--index-url) that cannot be read; nothing was changed']),
    });
    expect(askedConda()).toEqual([]);
  });

  it('an index that answers "not here" lets the next source answer, never the default PyPI in its place', async () => {
    const p = await plan({ indexes: { pypi: [`${base}/empty/`] } });
    expect(p.components[0]!.attempts.map((a) => [a.source, a.outcome, a.reason])).toEqual([
      ['pypi', 'not-found', `pypi ${base}/empty/: intel-cmplr-lib-ur not found on ${base}/empty/ (HTTP 404: it has no intel-cmplr-lib-ur, or it is not a PyPI simple index: check the URL)`],
      ['conda', 'chosen', `conda ${base}/conda: intel-cmplr-lib-ur 2025.2.1`],
    ]);
    expect(p.components[0]).toMatchObject({ status: 'planned', source: 'conda', fallbackFrom: [`pypi ${base}/empty/: intel-cmplr-lib-ur not found on ${base}/empty/ (HTTP 404: it has no intel-cmplr-lib-ur, or it is not a PyPI simple index: check the URL)`] });
  });
});

describe('a yanked wheel', () => {
  it('pinned: says it is yanked, the index\'s reason, and the version to pin instead', async () => {
    await expect(plan({ sources: ['pypi'], indexes: { pypi: [`${base}/yanked/`] }, requires: ['unified-runtime==2025.3.0'] })).rejects.toMatchObject({
      hints: expect.arrayContaining([
        `tried unified-runtime: pypi ${base}/yanked/: intel-cmplr-lib-ur 2025.3.0 on ${base}/yanked/ is yanked ("broken loader, use 2025.3.1"), and a yanked release is never installed: pin another version, e.g. --require 'unified-runtime==2025.2.1' (the newest not yanked)`,
      ]),
    });
  });

  it('the only release: says it is yanked and that no other version fits', async () => {
    await expect(plan({ sources: ['pypi'], indexes: { pypi: [`${base}/allyanked/`] } })).rejects.toMatchObject({
      hints: expect.arrayContaining([
        `tried unified-runtime: pypi ${base}/allyanked/: intel-cmplr-lib-ur 2025.3.0 on ${base}/allyanked/ is yanked ("broken loader, use 2025.3.1"), and a yanked release is never installed: no other intel-cmplr-lib-ur version fits; name another index with --index-url or another source with --source`,
      ]),
    });
  });

  it('newest yanked, unpinned: the one before it is planned', async () => {
    const p = await plan({ sources: ['pypi'], indexes: { pypi: [`${base}/yanked/`] } });
    expect(p.components[0]).toMatchObject({ status: 'planned', source: 'pypi', version: '2025.2.1' });
  });
});

describe('--conda-channel names the only conda channels', () => {
  it('an unreachable named channel fails the plan naming it: the manifest\'s channel is not asked', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}/ch`;
    await expect(plan({ sources: ['conda'], indexes: { conda: [dead] } })).rejects.toMatchObject({
      code: 'SOURCE_FAILED',
      message: expect.stringContaining(`unified-runtime: the source you named failed: conda ${dead}: `),
      details: { source: 'conda', outcome: 'unreachable', namedBy: '--conda-channel' },
    });
    expect(askedConda()).toEqual([]);
  });

  it('a channel whose records have no sha256 says so, naming the channel and a record, and what to do', async () => {
    await expect(plan({ sources: ['conda'], indexes: { conda: [`${base}/nosha`] } })).rejects.toMatchObject({
      code: 'NO_SOURCE',
      hints: expect.arrayContaining([
        `tried unified-runtime: conda ${base}/nosha: ${base}/nosha (win-64) lists intel-cmplr-lib-ur-2025.2.1-h0_0.conda and 1 more record without a sha256, so the download could not be verified and it is not used: ask the channel's maintainers to publish sha256 in its repodata, or name another channel with --conda-channel`,
      ]),
    });
  });

  it('a named channel without the package is not replaced by the manifest\'s channel', async () => {
    await expect(plan({ sources: ['conda'], indexes: { conda: [`${base}/other`] } })).rejects.toMatchObject({
      code: 'NO_SOURCE',
      hints: expect.arrayContaining([`tried unified-runtime: conda ${base}/other: intel-cmplr-lib-ur not found in ${base}/other (win-64)`]),
    });
    expect(askedConda()).toEqual([]);
  });

  it('a named channel whose packages do not fit together fails with the conflict, naming both sides, not as a source that cannot be read', async () => {
    const err = await plan({ sources: ['conda'], indexes: { conda: [`${base}/pinned`] } }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'RESOLUTION_CONFLICT',
      message: expect.stringMatching(/intel-cmplr-lib-ur 2025\.3\.2: umf ==1\.0\.3 h1_0.*only umf 1\.0\.3 h2_0 can be had/),
      hints: expect.arrayContaining(['pin versions that fit together with --require, or choose another source with --source']),
    });
    expect(JSON.stringify(err)).not.toMatch(/cannot be read|fix the URL or the network/);
  });

  it('a channel whose newest UR cannot be completed gives the newest older one that can, and the plan says why', async () => {
    const p = await plan({ sources: ['conda'], indexes: { conda: [`${base}/older`] } });
    expect(p.components[0]).toMatchObject({ status: 'planned', source: 'conda', version: '2025.3.1' });
    expect(p.components[0]!.archives.map((a) => `${a.package} ${a.version} ${a.build}`)).toEqual(['intel-cmplr-lib-ur 2025.3.1 h0_0', 'umf 1.0.2 h2_0']);
    expect(p.components[0]!.notes).toContain('intel-cmplr-lib-ur 2025.3.2 needs umf ==1.0.3 h1_0, which this index lacks: using 2025.3.1');
    // Pinned by the user, the newest stays, and its conflict is the error.
    const err = await plan({ sources: ['conda'], indexes: { conda: [`${base}/older`] }, requires: ['unified-runtime==2025.3.2'] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RESOLUTION_CONFLICT', message: expect.stringMatching(/^cannot satisfy intel-cmplr-lib-ur 2025\.3\.2: umf ==1\.0\.3 h1_0: /) });
  });

  it('without a named channel the manifest\'s channel answers (so the cases above test the naming, not a dead fixture)', async () => {
    const p = await plan({ sources: ['conda'] });
    expect(p.components[0]).toMatchObject({ status: 'planned', source: 'conda', version: '2025.2.1' });
    expect(askedConda().length).toBeGreaterThan(0);
  });
});
