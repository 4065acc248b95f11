// The remembered request (merge, constraints, removal), the +/- diff against a receipt, and the CI env renderers.
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Host } from '../../src/platform/types.js';
import { githubEnv, githubLines, renderDotenv, resolveEnv } from '../../src/shells/ci-env.js';
import { userShell } from '../../src/shells/index.js';
import { envVars } from '../../src/shells/env.js';
import type { Receipt } from '../../src/records/receipt.js';
import type { ComponentManifest, SourceSpec } from '../../src/manifest/schema.js';
import { diffPlan, planChanges } from '../../src/plan/diff.js';
import { LOCKFILE_NAME, loadLockSource, lockedOf, newLockfile, planFromLocked, writeLockfile } from '../../src/plan/lockfile.js';
import type { LockedComponent } from '../../src/records/lock.js';
import { makePlan } from '../../src/plan/plan.js';
import { planOptions, type PlanInput } from '../support/plan-options.js';
import { EMPTY_REQUEST, mergeRequest, sameRequest } from '../../src/plan/request.js';
import { recordedRequest } from '../../src/records/recorded-request.js';
import { setupLine } from '../../src/hints/index.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { failure } from '../support/failure.js';
import { openGateway } from '../../src/index/gateway.js';
import { Http } from '../../src/net/http.js';

const KNOWN = ['level-zero', 'unified-runtime'];

describe('mergeRequest', () => {
  it('takes the flags as they are on a first run', () => {
    const m = mergeRequest(undefined, { components: ['level-zero'], requires: ['level-zero>=1.9'] }, [], KNOWN);
    expect(m.request).toEqual({ ...EMPTY_REQUEST, components: ['level-zero'], requires: ['level-zero>=1.9'] });
    expect(m.required).toEqual(['level-zero']);
  });

  it('repeats the recorded request when nothing is said', () => {
    const recorded = { ...EMPTY_REQUEST, indexes: { conda: ['https://c.example/ch'], pypi: ['https://i.example/simple'] }, requires: ['level-zero>=1.9'], refdriver: true };
    expect(mergeRequest(recorded, {}, KNOWN, KNOWN).request).toEqual(recorded);
  });

  it('a kind whose index the run names takes only what it names; every other kind keeps what was recorded', () => {
    const recorded = { ...EMPTY_REQUEST, indexes: { conda: ['https://c.example/a', 'https://c.example/b'], pypi: ['https://i.example/simple'] } };
    const m = mergeRequest(recorded, { indexes: { conda: ['https://c.example/new'], github: ['https://gh.example/api'] } }, KNOWN, KNOWN);
    expect(m.request.indexes).toEqual({ conda: ['https://c.example/new'], pypi: ['https://i.example/simple'], github: ['https://gh.example/api'] });
    expect(mergeRequest(recorded, { indexes: {} }, KNOWN, KNOWN).request.indexes).toEqual(recorded.indexes);
    expect(mergeRequest(undefined, { indexes: { pypi: ['https://i.example/simple'] } }, [], KNOWN).request.indexes).toEqual({ pypi: ['https://i.example/simple'] });
  });

  it('reads a request written before requests held their indexes by kind as the same request', () => {
    const now = { ...EMPTY_REQUEST, indexes: { conda: ['https://c.example/ch'], pypi: ['https://i.example/simple'], github: ['https://gh.example/api'] }, requires: ['level-zero>=1.9'] };
    const older = { components: [], sources: [], condaChannels: ['https://c.example/ch'], indexUrl: 'https://i.example/simple', githubUrl: 'https://gh.example/api', requires: ['level-zero>=1.9'], refdriver: false };
    const read = recordedRequest(older as never);
    expect(read).toEqual(now);
    expect(sameRequest(read, now)).toBe(true);
    // Fields an older one wrote empty (no index named) name nothing; one already by kind is taken as it is.
    expect(recordedRequest({ ...older, condaChannels: [], indexUrl: undefined, githubUrl: undefined } as never).indexes).toEqual({});
    expect(recordedRequest(now)).toBe(now);
  });

  it('keeps an installed component that --component leaves out, and says how to remove it', () => {
    const recorded = { ...EMPTY_REQUEST, components: ['level-zero', 'unified-runtime'] };
    const m = mergeRequest(recorded, { components: ['level-zero'] }, KNOWN, KNOWN);
    expect(m.request.components).toEqual(['level-zero', 'unified-runtime']);
    expect(m.required).toEqual(['level-zero', 'unified-runtime']);
    expect(m.notes.join('\n')).toMatch(/keeping unified-runtime \(installed\); to take it out: --remove unified-runtime/);
  });

  it('removes only with --remove, and only what is installed', () => {
    const m = mergeRequest({ ...EMPTY_REQUEST }, { remove: ['unified-runtime'] }, KNOWN, KNOWN);
    expect(m.request.components).toEqual(['level-zero']);
    expect(m.required).toEqual(['level-zero']);
    expect(() => mergeRequest({ ...EMPTY_REQUEST }, { remove: ['unified-runtime'] }, ['level-zero'], KNOWN)).toThrow(/not installed in this prefix/);
  });

  it('replaces the recorded constraints of a component a new --require names', () => {
    const recorded = { ...EMPTY_REQUEST, requires: ['level-zero>=1.9', 'unified-runtime>=2025.0'] };
    const m = mergeRequest(recorded, { requires: ['level-zero>=1.20'] }, [], KNOWN);
    expect(m.request.requires).toEqual(['unified-runtime>=2025.0', 'level-zero>=1.20']);
  });

  it('a constraint on a component that is not asked for does not pull it in', () => {
    const m = mergeRequest(undefined, { components: ['unified-runtime'], requires: ['level-zero>=1.8'] }, [], KNOWN);
    expect(m.required).toEqual(['unified-runtime']);
    expect(mergeRequest(undefined, { requires: ['level-zero>=1.8'] }, [], KNOWN).required).toEqual(['level-zero']);
  });
});

// Planning for Windows on Linux: url sources resolve from data alone, so constraints and fallbacks are seen offline.
const winHost: Host = { platform: 'win-x64', os: 'win32', arch: 'x64', native: false };
const opts: PlanInput = { prefix: '/tmp/p', cacheDir: '/tmp/c' };
const url = (version: string, c: string): SourceSpec => ({
  kind: 'url', package: 'sdk', version, url: `https://example.invalid/sdk-${version}.zip`, sha256: c.repeat(64), map: [{ from: 'include/', to: 'include/' }],
});
const manifest = (sources: SourceSpec[], requires?: string[]): ComponentManifest => ({
  schema: 1, name: 'level-zero', summary: '', features: [], roles: ['ze-loader', 'ze-headers'], ...(requires ? { requires } : {}),
  platforms: { 'win-x64': { provides: [], sources } },
});
const plan = (ms: ComponentManifest[], o: Partial<PlanInput> = {}) => makePlan(winHost, ms, planOptions({ ...opts, ...o }), fakeDeps({ platform: 'linux' }), silentReporter, openGateway(fakeDeps(), { cacheDir: o.cacheDir ?? opts.cacheDir }));

describe('setupLine', () => {
  it('spells the recorded request out as a command that repeats it', () => {
    const request = { ...EMPTY_REQUEST, indexes: { conda: ['https://c.example/ch'] }, requires: ['level-zero>=1.9'], refdriver: true };
    expect(setupLine('xpu-setup', '/opt/xpu', { components: [], request })).toBe("xpu-setup --prefix /opt/xpu --conda-channel https://c.example/ch --require 'level-zero>=1.9' --refdriver");
  });

  it('repeats --match-torch, with its interpreter in one quoted word', () => {
    expect(setupLine('xpu-setup', '/opt/xpu', { components: [], request: { ...EMPTY_REQUEST, matchTorch: {} } })).toBe('xpu-setup --prefix /opt/xpu --match-torch');
    const named = { ...EMPTY_REQUEST, matchTorch: { python: '/home/me/my env/bin/python3' } };
    expect(setupLine('xpu-setup', '/opt/xpu', { components: [], request: named })).toBe("xpu-setup --prefix /opt/xpu '--match-torch=/home/me/my env/bin/python3'");
  });
});

describe('version floors in planning', () => {
  it('skips a source below the floor, says why, and records the fallback', async () => {
    const p = await plan([manifest([url('1.8.12', 'a'), url('1.20.6', 'b')])], { requires: ['level-zero>=1.9'] });
    const c = p.components[0]!;
    expect(c.version).toBe('1.20.6');
    expect(c.constraints).toEqual(['level-zero>=1.9']);
    expect(c.fallbackFrom).toEqual([expect.stringMatching(/1\.8\.12 does not meet level-zero>=1\.9/)]);
  });

  it('a manifest floor is a preference: a source that meets it wins, else the best reachable one, marked below it', async () => {
    const m = manifest([url('1.8.12', 'a')], ['>=1.9']);
    const below = (await plan([m])).components[0]!;
    expect(below).toMatchObject({ status: 'planned', version: '1.8.12', belowFloor: { floor: ['level-zero>=1.9'], unreached: [] } });
    expect(below.constraints).toBeUndefined();
    const newest = (await plan([manifest([url('1.8.12', 'a'), url('1.8.13', 'c')], ['>=1.9'])])).components[0]!;
    expect(newest).toMatchObject({ version: '1.8.13', fallbackFrom: [expect.stringMatching(/1\.8\.12 does not meet level-zero>=1\.9/)] });
    const meets = (await plan([manifest([url('1.8.12', 'a'), url('1.20.6', 'b')], ['>=1.9'])])).components[0]!;
    expect(meets).toMatchObject({ version: '1.20.6', constraints: ['level-zero>=1.9'] });
    expect(meets.belowFloor).toBeUndefined();
  });

  it('a floor the user asks for stays hard: --require replaces the manifest default and is never undercut', async () => {
    const m = manifest([url('1.8.12', 'a')], ['>=1.9']);
    await expect(plan([m], { requires: ['level-zero>=1.9'] })).rejects.toThrow(/no source could provide level-zero/);
    const p = await plan([m], { requires: ['level-zero>=1.8'] });
    expect(p.components[0]!).toMatchObject({ version: '1.8.12', constraints: ['level-zero>=1.8'] });
    expect(p.components[0]!.belowFloor).toBeUndefined();
  });

  it('judges features and the below-floor choice in the source\'s own ordering (url sources: conda\'s)', async () => {
    const m: ComponentManifest = { ...manifest([url('1.9rc1', 'a')]), features: [{ since: '1.9.0', what: 'the IP version extension' }] };
    // conda's order puts 1.9rc1 before 1.9.0: the release candidate lacks what 1.9.0 brought.
    expect((await plan([m])).components[0]!.notes).toEqual(['level-zero 1.9rc1 lacks the IP version extension (since 1.9.0)']);
    // Below the floor everywhere: the newest answer wins, and in conda's order a dev release is before its release.
    const below = (await plan([manifest([url('1.8.0', 'a'), url('1.8.dev1', 'c')], ['>=1.9'])])).components[0]!;
    expect(below).toMatchObject({ version: '1.8.0', belowFloor: { floor: ['level-zero>=1.9'] } });
  });

  it('a release candidate is below its release', async () => {
    await expect(plan([manifest([url('1.9rc1', 'a')])], { requires: ['level-zero>=1.9'] })).rejects.toMatchObject({
      code: 'NO_SOURCE',
      hints: expect.arrayContaining([expect.stringMatching(/1\.9rc1 does not meet level-zero>=1\.9/)]),
    });
  });
});

describe('lock data round trip', () => {
  it('a plan rebuilt from its lock entry has the same planKey, and an edited entry is refused', async () => {
    const p = await plan([manifest([url('1.20.6', 'b')])]);
    const locked = lockedOf(p);
    const again = planFromLocked(winHost, [manifest([url('1.20.6', 'b')])], locked, { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'lock', path: 'x.json' } });
    expect(again.planKey).toBe(p.planKey);
    const edited = { ...locked, components: [{ ...locked.components[0]!, archives: [{ ...locked.components[0]!.archives[0]!, sha256: 'c'.repeat(64) }] }] };
    expect(() => planFromLocked(winHost, [manifest([])], edited, { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'lock', path: 'x.json' } })).toThrow(/does not match its key/);
  });

  it.each([
    ['version', (c: LockedComponent) => ({ ...c, version: '1.99.0' })],
    ['source', (c: LockedComponent) => ({ ...c, source: 'pypi' as const })],
    ['origin', (c: LockedComponent) => ({ ...c, origin: 'https://elsewhere.invalid/' })],
    ['URL', (c: LockedComponent) => ({ ...c, archives: [{ ...c.archives[0]!, url: 'http://evil.invalid/sdk.zip' }] })],
    ['size', (c: LockedComponent) => ({ ...c, archives: [{ ...c.archives[0]!, size: 1 }] })],
    ['map', (c: LockedComponent) => ({ ...c, archives: [{ ...c.archives[0]!, map: [{ from: 'include/', to: 'lib/' }] }] })],
  ])('an entry whose %s was edited by hand is refused (LOCKFILE), with nothing installed', async (_what, edit) => {
    const m = manifest([url('1.20.6', 'b')]);
    const locked = lockedOf(await plan([m]));
    const edited = { ...locked, components: [edit(locked.components[0]!)] };
    const e = await failure(Promise.resolve().then(() => planFromLocked(winHost, [m], edited, { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'lock', path: 'x.json' } })));
    expect([e.code, e.message]).toEqual(['LOCKFILE', 'x.json: the win-x64 entry does not match its key: a version, URL, size, sha256, source, origin or map was edited by hand']);
    // The key does not depend on how an editor ordered the fields.
    const reordered = { ...locked, components: locked.components.map((c) => Object.fromEntries(Object.entries(c).reverse()) as unknown as LockedComponent) };
    expect(planFromLocked(winHost, [m], reordered, { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'lock', path: 'x.json' } }).components[0]!.version).toBe('1.20.6');
  });

  it('a lockfile entry without a key is refused; a receipt\'s recorded plan without one is still read', async () => {
    const m = manifest([url('1.20.6', 'b')]);
    const { key: _key, ...old } = lockedOf(await plan([m]));
    expect(() => planFromLocked(winHost, [m], old, { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'bundle', path: 'b/x.json' } })).toThrow(/has no key over its fields/);
    expect(planFromLocked(winHost, [m], old, { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'receipt', path: 'r.json', reason: 'test' } }).components).toHaveLength(1);
  });
});

describe('a bundle reads only under its root', () => {
  async function bundleWith(archiveUrl: string): Promise<string> {
    const m = manifest([url('1.20.6', 'b')]);
    const p = await plan([m]);
    p.components[0]!.archives[0]!.url = archiveUrl;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-bundle-'));
    await writeLockfile(path.join(dir, LOCKFILE_NAME), newLockfile(EMPTY_REQUEST, { 'win-x64': lockedOf(p) }));
    return dir;
  }

  it.each(['http://127.0.0.1:9/sdk.zip', '../outside.zip', 'files/../../outside.zip', 'file:///etc/passwd', '/etc/passwd'])(
    'a lockfile naming %j is refused before anything is fetched',
    async (u) => {
      const dir = await bundleWith(u);
      const src = await loadLockSource({ bundle: dir }, new Http({}));
      const e = await failure(Promise.resolve().then(() => planFromLocked(winHost, [manifest([])], src.entry('win-x64'), { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'bundle', path: src.where }, relocate: src.relocate })));
      expect([e.code, e.message]).toEqual(['LOCKFILE', `${src.where} names the archive "${u}", which is not under the bundle ${dir}`]);
      expect(e.hints[0]).toMatch(/reads only files under the bundle itself/);
    },
  );

  it('a path under the root is taken, as a file: URL; one through a link that leaves the root is refused', async () => {
    const dir = await bundleWith('files/sdk.zip');
    const src = await loadLockSource({ bundle: dir }, new Http({}));
    const p = planFromLocked(winHost, [manifest([])], src.entry('win-x64'), { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'bundle', path: src.where }, relocate: src.relocate });
    expect(p.components[0]!.archives[0]!.url).toBe(pathToFileURL(path.join(dir, 'files', 'sdk.zip')).href);
    await fs.symlink(os.tmpdir(), path.join(dir, 'files'));
    expect(() => planFromLocked(winHost, [manifest([])], src.entry('win-x64'), { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'bundle', path: src.where }, relocate: src.relocate })).toThrow(/not under the bundle/);
  });

  it('a bundle served over http refuses an archive on another host or above its path, and takes one under it', async () => {
    const text = async (u: string) => JSON.stringify(newLockfile(EMPTY_REQUEST, { 'win-x64': await (async () => {
      const p = await plan([manifest([url('1.20.6', 'b')])]);
      p.components[0]!.archives[0]!.url = u;
      return lockedOf(p);
    })() }));
    let body = '';
    const server = http.createServer((_req, res) => res.end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/b/`;
    try {
      for (const [u, ok] of [['http://127.0.0.2:1/b/x.zip', false], ['../x.zip', false], ['/x.zip', false], ['files/x.zip', true]] as const) {
        body = await text(u);
        const src = await loadLockSource({ bundle: base }, new Http({}));
        const make = () => planFromLocked(winHost, [manifest([])], src.entry('win-x64'), { prefix: '/tmp/p', cacheDir: '/tmp/c', from: { kind: 'bundle', path: src.where }, relocate: src.relocate });
        if (ok) expect(make().components[0]!.archives[0]!.url).toBe(`${base}files/x.zip`);
        else expect(make).toThrow(/not under the bundle/);
      }
    } finally {
      server.close();
    }
  });
});

describe('diffPlan', () => {
  const receipt = (components: Receipt['components']): Receipt => ({
    schema: 1, tool: { name: 'xpu-setup', version: '0' }, platform: 'win-x64', prefix: '/tmp/p', installedAt: '', planKey: '', components, archives: [], files: [],
  });
  it('shows a downgrade and a source switch with - and + lines', async () => {
    const p = await plan([manifest([url('1.8.12', 'a')])]);
    const d = diffPlan(receipt([{ name: 'level-zero', version: '1.20.6', source: 'conda https://conda.example/cf', notes: [] }]), p);
    expect(d.changes).toEqual([expect.objectContaining({ component: 'level-zero', kind: 'downgrade' })]);
    expect(d.lines).toEqual(['- level-zero 1.20.6 from conda https://conda.example/cf', '+ level-zero 1.8.12 from url https://example.invalid/sdk-1.8.12.zip   (downgrade)']);
  });
  it('shows a removal, and nothing for an unchanged component', async () => {
    const p = await plan([manifest([url('1.8.12', 'a')])]);
    const d = diffPlan(receipt([
      { name: 'level-zero', version: '1.8.12', source: 'url https://example.invalid/sdk-1.8.12.zip', notes: [] },
      { name: 'unified-runtime', version: '2025.3.1', source: 'pypi https://pypi.org/simple', notes: [] },
    ]), p);
    expect(d.lines).toEqual(['- unified-runtime 2025.3.1 from pypi https://pypi.org/simple']);
  });
  it('plan reads the same comparison by archives: the same bytes are kept, other bytes replace, gone is removed', async () => {
    const p = await plan([manifest([url('1.8.12', 'a')])]);
    const sdk = 'url https://example.invalid/sdk-1.8.12.zip';
    const recorded = (sha: string): Receipt => ({
      ...receipt([
        { name: 'level-zero', version: '1.8.12', source: sdk, notes: [] },
        { name: 'unified-runtime', version: '2025.3.1', source: 'pypi https://pypi.org/simple', notes: [] },
      ]),
      archives: [{ component: 'level-zero', source: 'url', package: 'sdk', version: '1.8.12', url: 'https://example.invalid/sdk-1.8.12.zip', sha256: sha.repeat(64), size: 1 }],
    });
    const ur = { name: 'unified-runtime', version: '2025.3.1', source: 'pypi https://pypi.org/simple' };
    const l0 = { name: 'level-zero', version: '1.8.12', source: sdk };
    expect(planChanges(p, recorded('a'), [])).toEqual({ upToDate: false, add: [], remove: [ur], keep: [l0], damaged: [] });
    // Same version and source, other bytes: setup's lines say nothing of it, plan says it replaces it.
    expect(planChanges(p, recorded('b'), [])).toMatchObject({ add: [l0], remove: [l0, ur], keep: [] });
    expect(diffPlan(recorded('b'), p).lines).toEqual(['- unified-runtime 2025.3.1 from pypi https://pypi.org/simple']);
    // Up to date is the plan key and every file as recorded.
    expect(planChanges(p, { ...recorded('a'), planKey: p.planKey }, []).upToDate).toBe(true);
    expect(planChanges(p, { ...recorded('a'), planKey: p.planKey }, [{ path: 'include/ze_api.h', problem: 'changed' }]).upToDate).toBe(false);
    expect(planChanges(p, undefined, [])).toEqual({ upToDate: false, add: [l0], remove: [], keep: [], damaged: [] });
    expect(diffPlan(undefined, p)).toEqual({ changes: [{ component: 'level-zero', kind: 'add', to: `1.8.12 from ${sdk}` }], lines: [] });
  });
});

describe('CI environment', () => {
  const vars = envVars('/opt/xpu', 'linux-x64', { TRITON_INTEL_DEVICE_ARCH: 'pvc' });
  it('dotenv resolves search paths against the current environment and quotes nothing', () => {
    const text = renderDotenv(resolveEnv(vars, 'linux-x64', { LD_LIBRARY_PATH: '/usr/local/lib' }));
    expect(text).toContain('LEVEL_ZERO_V1_SDK_PATH=/opt/xpu\n');
    expect(text).toContain('LD_LIBRARY_PATH=/opt/xpu/lib:/usr/local/lib\n');
    expect(text).toContain('CPATH=/opt/xpu/include\n');
    expect(text).toContain('TRITON_INTEL_DEVICE_ARCH=pvc\n');
  });
  it('GitHub: PATH through GITHUB_PATH, the rest through GITHUB_ENV', () => {
    const gh = githubEnv(envVars('C:\\xpu', 'win-x64'), 'win-x64', { PATH: 'C:/Windows' });
    expect(gh.path).toBe('C:\\xpu\\bin\n');
    expect(gh.env).not.toMatch(/^PATH=/m);
    expect(gh.env).toContain('LEVEL_ZERO_V1_SDK_PATH=C:\\xpu\n');
  });
  it('GitHub: a value with a newline goes in a heredoc whose random delimiter the value cannot hold', () => {
    const value = 'line one\nEOF\nline three';
    const a = githubLines([{ name: 'X', value }]);
    const m = /^X<<(xpu_setup_[0-9a-f]{16})\n([\s\S]*)\n\1\n$/.exec(a);
    expect(m?.[2]).toBe(value);
    expect(githubLines([{ name: 'X', value }])).not.toBe(a);
    expect(githubLines([{ name: 'Y', value: 'plain' }])).toBe('Y=plain\n');
  });
  it('sh exports quote single quotes', () => {
    expect(userShell('sh').exports([{ name: 'A', value: "it's" }], [])).toBe("export A='it'\\''s'\n");
  });
});
