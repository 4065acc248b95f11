// Doing what was asked, again: the remembered request, lockfile, offline runs, bundles, and the environment for CI and modules.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDirectory, type StaticServer } from '../support/static-server.js';
import { DEBIAN_12_STACK, joined, listTree, runCli, scrubbedEnv } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('intent', { require: DEBIAN_12_STACK });
/** Only what the user gave: no index URL from the environment. */
let bare: Record<string, string>;
/** A port nothing listens on: every request through this proxy is refused, as with no network at all. */
const DEAD = 'http://127.0.0.1:9';
const offline = (e: Record<string, string>) => ({ ...e, HTTP_PROXY: DEAD, HTTPS_PROXY: DEAD });

beforeAll(async () => {
  bare = scrubbedEnv(fx.home, { XPU_SETUP_REQUIRE: DEBIAN_12_STACK });
});

const exists = (p: string) => fs.lstat(p).then(() => true, () => false);
const readJson = async (p: string) => JSON.parse(await fs.readFile(p, 'utf8'));
/** Index requests other than archive downloads: repodata and simple/JSON pages. */
const indexPages = (from: number) => fx.index.requests.slice(from).map((r) => r.path).filter((p) => /repodata|\/simple\/|\/pypi\//.test(p) && !/\.(whl|conda|bz2)$/.test(p));
/** A request as xpu-setup wrote it before requests held their indexes by kind: each kind's index a field of its own. */
const olderRequest = ({ indexes, ...rest }: { indexes: Record<string, string[]> } & Record<string, unknown>) => ({
  components: rest.components, sources: rest.sources, condaChannels: indexes.conda ?? [], ...(indexes.pypi && { indexUrl: indexes.pypi[0] }), ...(indexes.github && { githubUrl: indexes.github[0] }),
  requires: rest.requires, refdriver: rest.refdriver,
});

describe('the request is remembered and enforced', () => {
  let prefix: string;
  let cache: string;
  const receipt = () => readJson(path.join(prefix, 'xpu-setup.receipt.json'));

  beforeAll(async () => {
    prefix = fx.at('req', 'prefix');
    cache = fx.at('req', 'cache');
    const r = await fx.run(['--prefix', prefix, '--cache-dir', cache, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-smoke']);
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('records the request in the receipt', async () => {
    expect((await receipt()).request).toEqual({
      components: [], sources: [], indexes: { conda: [fx.index.condaChannelUrl('bookworm')], pypi: [fx.index.simpleUrl] }, requires: DEBIAN_12_STACK.split(','), refdriver: false,
    });
  });

  it('the first re-run after the install asks no index: the install kept its plan for the key that run computes', async () => {
    // The re-run finds both components installed, which makes them required: another key than the install's.
    const before = fx.index.requests.length;
    const r = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--verbose'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/plan: reusing the plan made for the same request less than 10 minutes ago/);
    expect(indexPages(before)).toEqual([]);
  });

  it('a bare re-run repeats it: same channel and index, nothing changed, "up to date"', async () => {
    const before = fx.index.requests.length;
    // --refresh: the indexes are asked again (not the plan of the install above reused), which shows the channel used.
    const r = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--json', '--refresh'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ changed: false, request: { indexes: { conda: [fx.index.condaChannelUrl('bookworm')] } } });
    expect(r.stderr).toMatch(/is up to date/);
    expect(indexPages(before)).toContain('/conda/bookworm/linux-64/repodata.json.zst');
  });

  it('a receipt an earlier xpu-setup wrote (channels and index in fields of their own) is the same request: a bare re-run reads that channel, is up to date and rewrites nothing', async () => {
    const file = path.join(prefix, 'xpu-setup.receipt.json');
    const now = await receipt();
    const text = JSON.stringify({ ...now, request: olderRequest(now.request) }, null, 2);
    await fs.writeFile(file, text);
    const before = fx.index.requests.length;
    const r = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--json', '--refresh'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ changed: false, request: now.request });
    expect(JSON.parse(r.stdout).requestUpdated).toBeUndefined();
    expect(r.stderr).toMatch(/is up to date/);
    expect(indexPages(before)).toContain('/conda/bookworm/linux-64/repodata.json.zst');
    expect(await fs.readFile(file, 'utf8')).toBe(text);
  });

  it('--component naming one component keeps the other installed one, and says how to remove it', async () => {
    const r = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--component', 'level-zero'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/keeping unified-runtime \(installed\); to take it out: --remove unified-runtime/);
    expect(await exists(path.join(prefix, 'lib/libur_loader.so.0'))).toBe(true);
  });

  it('a floor you ask for that no allowed source meets is an error naming what each has; the prefix stays as it was', async () => {
    const before = await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8');
    const r = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--require', 'level-zero>=1.9'], bare);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/error: no source could provide level-zero/);
    expect(r.stderr).toMatch(/hint: tried level-zero: conda .*bookworm: newest level-zero in .*bookworm \(linux-64\) is 1\.8\.12, which does not meet level-zero>=1\.9/);
    expect(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(before);
  });

  it('the shipped floor (level-zero>=1.9) is a preference: Debian 12\'s 1.8.12 is planned, marked below it', async () => {
    const { XPU_SETUP_REQUIRE: _lowered, ...shipped } = fx.env;
    const r = await runCli(['plan', '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json'], shipped);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).components[0]).toMatchObject({ version: '1.8.12', source: 'conda', belowFloor: { floor: ['level-zero>=1.9'] } });
    expect(r.stderr).toMatch(/no reachable source has a version that meets the recommended level-zero>=1\.9/);
    const ok = await runCli(['plan', '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('trixie'), '--json'], shipped);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).components[0]).toMatchObject({ version: '1.20.6', constraints: ['level-zero>=1.9'] });
    expect(JSON.parse(ok.stdout).components[0].belowFloor).toBeUndefined();
  });

  it('with every index unreachable, an intact and cached prefix is verified and reported up to date', async () => {
    const before = await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8');
    // --refresh: the plan made moments ago for this request would otherwise be reused without asking any index.
    const r = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--refresh', '--json'], offline(bare));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ changed: false, from: { kind: 'receipt' } });
    // A note over 200 characters goes on in the next lines.
    expect(joined(r.stderr)).toMatch(/note: .*holds the plan recorded for this request, intact and cached: keeping it/);
    expect(r.stderr).toMatch(/is up to date/);
    expect(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(before);
  });

  it('removing an installed component takes --remove, and the +/- diff comes first', async () => {
    const r = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--remove', 'unified-runtime'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/changes to .*:\n\s+- unified-runtime 20\d\d\.\d+\.\d+ from pypi http:\/\/127\.0\.0\.1:\d+\/simple\n/);
    expect(r.stderr.indexOf('- unified-runtime')).toBeLessThan(r.stderr.indexOf('installed '));
    expect(await exists(path.join(prefix, 'lib/libur_loader.so.0'))).toBe(false);
    expect((await receipt()).request.components).toEqual(['level-zero']);
    // And it stays out: a bare re-run repeats the request without it.
    const again = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--json'], bare);
    expect(JSON.parse(again.stdout).components.map((c: { name: string }) => c.name)).toEqual(['level-zero']);
  });

  it('--remove of something not installed is a usage error', async () => {
    const r = await runCli(['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--remove', 'unified-runtime'], bare);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--remove unified-runtime: not installed in this prefix/);
  });
});

describe('lockfile, --locked and --offline', () => {
  let lockfile: string;
  let lock: { platforms: Record<string, { components: { name: string; archives: { url: string; sha256: string; size: number; map: unknown[] }[] }[] }> };
  const cache = () => fx.at('lock', 'cache');

  beforeAll(async () => {
    lockfile = fx.at('lock', 'xpu-setup.lock.json');
    const r = await fx.run(['lock', '--platform', 'linux-x64,win-x64', '--lockfile', lockfile, '--conda-channel', fx.index.condaChannelUrl('bookworm')]);
    expect(r.exitCode, r.stderr).toBe(0);
    lock = await readJson(lockfile);
  });

  it('writes every archive per platform with URL, size, sha256 and map', () => {
    expect(Object.keys(lock.platforms).sort()).toEqual(['linux-x64', 'win-x64']);
    for (const p of Object.values(lock.platforms)) {
      expect(p.components.map((c) => c.name).sort()).toEqual(['level-zero', 'unified-runtime']);
      for (const a of p.components.flatMap((c) => c.archives)) {
        expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
        expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
        expect(a.size).toBeGreaterThan(0);
        expect(a.map.length).toBeGreaterThan(0);
      }
    }
  });

  it('--locked installs exactly the lock and asks no index, only for the archives', async () => {
    const prefix = fx.at('lock', 'prefix');
    const before = fx.index.requests.length;
    const r = await runCli(['--locked', '--lockfile', lockfile, '--prefix', prefix, '--cache-dir', cache(), '--no-smoke'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(indexPages(before)).toEqual([]);
    const receipt = await readJson(path.join(prefix, 'xpu-setup.receipt.json'));
    const locked = lock.platforms['linux-x64']!.components.flatMap((c) => c.archives.map((a) => a.sha256)).sort();
    expect(receipt.archives.map((a: { sha256: string }) => a.sha256).sort()).toEqual(locked);
  });

  it('a lockfile an earlier xpu-setup wrote (channels and index in fields of their own) installs the same archives and records the same request', async () => {
    const older = fx.at('lock', 'older.lock.json');
    const doc = await readJson(lockfile);
    await fs.writeFile(older, JSON.stringify({ ...doc, request: olderRequest(doc.request) }, null, 2));
    const prefix = fx.at('lock', 'older-prefix');
    const r = await runCli(['--locked', '--lockfile', older, '--prefix', prefix, '--cache-dir', cache(), '--no-smoke'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
    const receipt = await readJson(path.join(prefix, 'xpu-setup.receipt.json'));
    const locked = lock.platforms['linux-x64']!.components.flatMap((c) => c.archives.map((a) => a.sha256)).sort();
    expect(receipt.archives.map((a: { sha256: string }) => a.sha256).sort()).toEqual(locked);
    expect(receipt.request).toEqual(doc.request);
    // The lockfile written now, over the prefix installed from the older one: nothing to do.
    const again = await runCli(['--locked', '--lockfile', lockfile, '--prefix', prefix, '--cache-dir', cache(), '--no-smoke'], bare);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/is up to date/);
  });

  it('--offline with an empty cache names each missing archive with URL and hash', async () => {
    const r = await runCli(['--locked', '--lockfile', lockfile, '--offline', '--prefix', fx.at('lock', 'p-empty'), '--cache-dir', fx.at('lock', 'empty-cache')], offline(bare));
    expect(r.exitCode).toBe(1);
    // Level Zero and its devel package, UR and the UMF and tcmlib its closure brings.
    expect(r.stderr).toMatch(/error: --offline: 5 of 5 archives are not in the cache/);
    for (const a of lock.platforms['linux-x64']!.components.flatMap((c) => c.archives)) expect(r.stderr).toContain(`missing ${a.url} sha256 ${a.sha256}`);
    expect(await exists(fx.at('lock', 'p-empty'))).toBe(false);
  });

  it('--offline re-run of an installed prefix: no request at all, up to date', async () => {
    const prefix = fx.at('lock', 'prefix');
    const before = fx.index.requests.length;
    const r = await runCli(['--offline', '--prefix', prefix, '--cache-dir', cache(), '--no-smoke'], offline(bare));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/is up to date/);
    expect(fx.index.requests.length).toBe(before);
  });

  it('--offline without a lock or a recorded plan says how to get one', async () => {
    const r = await runCli(['--offline', '--prefix', fx.at('lock', 'nothing'), '--cache-dir', cache()], offline(bare));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/--offline needs a plan that asks no index/);
    expect(r.stderr).toMatch(/hint: install from a lockfile: xpu-setup --locked --offline/);
  });

  it('a lockfile without the platform asked for is an error naming what it has', async () => {
    const one = fx.at('lock', 'linux-only.json');
    const doc = await readJson(lockfile);
    delete doc.platforms['win-x64'];
    await fs.writeFile(one, JSON.stringify(doc));
    const r = await runCli(['--locked', '--lockfile', one, '--platform', 'win-x64', '--prefix', fx.at('lock', 'win')], bare);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/has no entry for win-x64[\s\S]*hint: it has: linux-x64/);
  });
});

describe('bundles', () => {
  let bundle: string;
  let server: StaticServer;

  beforeAll(async () => {
    bundle = fx.at('bundle');
    const r = await fx.run(['bundle', '--platform', 'linux-x64,win-x64', '--out', bundle, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--cache-dir', fx.at('bundle-cache')]);
    expect(r.exitCode, r.stderr).toBe(0);
    server = await serveDirectory(bundle);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('is a conda channel, a PEP 503 simple index and a lockfile', async () => {
    const tree = await listTree(bundle);
    for (const f of ['linux-64/repodata.json', 'win-64/repodata.json', 'noarch/repodata.json', 'simple/index.html', 'simple/intel-cmplr-lib-ur/index.html', 'xpu-setup.lock.json']) {
      expect(tree, f).toContain(f);
    }
    const repodata = await readJson(path.join(bundle, 'linux-64/repodata.json'));
    const l0 = Object.entries(repodata['packages.conda'] as Record<string, { name: string; sha256: string }>);
    expect(l0.map(([, r]) => r.name).sort()).toEqual(['level-zero', 'level-zero-devel']);
    for (const [file, rec] of l0) {
      const bytes = await fs.readFile(path.join(bundle, 'linux-64', file));
      expect((await import('node:crypto')).createHash('sha256').update(bytes).digest('hex')).toBe(rec.sha256);
    }
    expect(await fs.readFile(path.join(bundle, 'simple/intel-cmplr-lib-ur/index.html'), 'utf8')).toMatch(/href="intel_cmplr_lib_ur-[^"]+win_amd64\.whl#sha256=[0-9a-f]{64}"/);
  });

  it('resolves through the ordinary conda and PyPI code when served as a channel and an index', async () => {
    const r = await runCli(['plan', '--conda-channel', server.url, '--index-url', `${server.url}/simple`, '--json'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
    const lock = await readJson(path.join(bundle, 'xpu-setup.lock.json'));
    const want = lock.platforms['linux-x64'].components.flatMap((c: { archives: { sha256: string }[] }) => c.archives.map((a) => a.sha256)).sort();
    const got = JSON.parse(r.stdout).components.flatMap((c: { archives: { sha256: string }[] }) => c.archives.map((a) => a.sha256)).sort();
    expect(got).toEqual(want);
  });

  it('installs from its URL with no other request', async () => {
    const before = fx.index.requests.length;
    server.requests.length = 0;
    const prefix = fx.at('from-url', 'prefix');
    const r = await runCli(['--from', server.url, '--prefix', prefix, '--cache-dir', fx.at('from-url', 'cache'), '--no-smoke'], { ...bare, XPU_SETUP_INDEX_URL: `${DEAD}/simple` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(fx.index.requests.length).toBe(before);
    // The lockfile, then the five archives of the closure: nothing else, from nowhere else.
    expect(server.requests[0]).toBe('/xpu-setup.lock.json');
    expect(server.requests.slice(1).sort()).toEqual([
      expect.stringMatching(/^\/linux-64\/level-zero-1\.8\.12-[^/]+\.conda$/),
      expect.stringMatching(/^\/linux-64\/level-zero-devel-1\.8\.12-[^/]+\.conda$/),
      expect.stringMatching(/^\/simple\/intel-cmplr-lib-ur\/intel_cmplr_lib_ur-[^/]+manylinux_2_28_x86_64\.whl$/),
      expect.stringMatching(/^\/simple\/tcmlib\/tcmlib-[^/]+manylinux_2_28_x86_64\.whl$/),
      expect.stringMatching(/^\/simple\/umf\/umf-[^/]+manylinux_2_28_x86_64\.whl$/),
    ]);
    expect(await exists(path.join(prefix, 'lib/libze_loader.so.1'))).toBe(true);
    expect((await readJson(path.join(prefix, 'xpu-setup.receipt.json'))).request.indexes.conda).toEqual([fx.index.condaChannelUrl('bookworm')]);
  });

  it('installs from the directory with networking disabled (every proxy refused), for Linux and for Windows', async () => {
    const linux = fx.at('from-dir', 'linux');
    const r = await runCli(['--from', bundle, '--prefix', linux, '--cache-dir', fx.at('from-dir', 'cache'), '--no-smoke'], offline(bare));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await exists(path.join(linux, 'include/level_zero/ze_api.h'))).toBe(true);
    const win = fx.at('from-dir', 'win');
    const w = await runCli(['--from', bundle, '--platform', 'win-x64', '--prefix', win, '--cache-dir', fx.at('from-dir', 'cache')], offline(bare));
    expect(w.exitCode, w.stderr).toBe(0);
    const tree = await listTree(win);
    for (const f of ['include/level_zero/ze_api.h', 'lib/ze_loader.lib', 'bin/ur_loader.dll']) expect(tree, f).toContain(f);
  });
});

describe('CI', () => {
  let prefix: string;
  let files: { env: string; path: string; output: string };

  beforeAll(async () => {
    prefix = fx.at('ci', 'prefix');
    const dir = fx.at('ci');
    await fs.mkdir(dir, { recursive: true });
    files = { env: path.join(dir, 'github_env'), path: path.join(dir, 'github_path'), output: path.join(dir, 'github_output') };
    for (const f of Object.values(files)) await fs.writeFile(f, '');
    const r = await runCli(['--component', 'level-zero', '--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--cache-dir', path.join(dir, 'cache'), '--no-smoke'], bare);
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('env --shell lmod / tcl print modulefiles of the installed prefix, and Lmod loads one', async () => {
    const lua = await runCli(['env', '--prefix', prefix, '--shell', 'lmod'], bare);
    expect(lua.exitCode, lua.stderr).toBe(0);
    expect(lua.stdout).toContain(`prepend_path("CPATH", "${prefix}/include")`);
    expect(lua.stdout).toContain('whatis("Version: level-zero 1.8.12")');
    const tcl = await runCli(['env', 'tcl', '--prefix', prefix], bare);
    expect(tcl.exitCode, tcl.stderr).toBe(0);
    expect(tcl.stdout).toMatch(/^#%Module/);
    expect(tcl.stdout).toContain(`prepend-path CPATH "${prefix}/include"`);
    const dir = fx.at('ci', 'modulefiles');
    await fs.mkdir(path.join(dir, 'xpu-setup'), { recursive: true });
    await fs.writeFile(path.join(dir, 'xpu-setup', '1.8.12.lua'), lua.stdout);
    const loaded = await execa('bash', ['-c', `. /usr/share/lmod/lmod/init/bash; module use ${dir}; module load xpu-setup; echo "$CPATH"`], { env: { PATH: bare.PATH, HOME: bare.HOME }, extendEnv: false });
    expect(loaded.stdout.trim()).toBe(`${prefix}/include`);
    const unset = await runCli(['env', 'lmod', '--unset', '--prefix', prefix], bare);
    expect(unset.exitCode).toBe(2);
    expect(unset.stderr).toContain('module unload');
  });

  it('env --shell github appends to the files, --shell dotenv prints literal lines', async () => {
    await fs.writeFile(files.env, '');
    const gh = await runCli(['env', '--prefix', prefix, '--shell', 'github'], { ...bare, GITHUB_ENV: files.env, GITHUB_PATH: files.path });
    expect(gh.exitCode, gh.stderr).toBe(0);
    expect(await fs.readFile(files.env, 'utf8')).toContain(`ZE_PATH=${prefix}\n`);
    const dotenv = await runCli(['env', '--prefix', prefix, '--shell', 'dotenv'], { ...bare, LIBRARY_PATH: '/opt/other/lib' });
    expect(dotenv.exitCode, dotenv.stderr).toBe(0);
    expect(dotenv.stdout).toContain(`LIBRARY_PATH=${prefix}/lib:/opt/other/lib\n`);
    expect(dotenv.stdout).not.toMatch(/['"]/);
  });
});
