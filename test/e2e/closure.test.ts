// The dependency closure, end to end: UR's UMF, tcmlib and hwloc come along from the package metadata, every library in the prefix resolves, and a bundle carries the closure for pip too.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureIndex, type FixtureIndex } from '../support/index-server.js';
import { serveDirectory, type StaticServer } from '../support/static-server.js';
import { REPO, joined } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('closure', { require: 'level-zero>=1.8' });

const readJson = async (p: string) => JSON.parse(await fs.readFile(p, 'utf8'));
const pkgs = (archives: { package: string; version: string }[]) => archives.map((a) => `${a.package} ${a.version}`).sort();

/**
 * A copy of the shipped manifests in `dir` where the UR source of `platform` (its first, or its conda one) leaves
 * `pkg` out: what a manifest's `skip` does, used to see the check before the swap refuse the tree.
 */
async function manifestsSkipping(dir: string, platform: 'linux-x64' | 'win-x64', pkg: string, source: 'first' | 'conda' = 'first'): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const ur = await readJson(path.join(REPO, 'manifests', 'unified-runtime.json'));
  const sources = ur.platforms[platform].sources as { kind: string; skip?: unknown }[];
  const spec = source === 'conda' ? sources.find((s) => s.kind === 'conda')! : sources[0]!;
  spec.skip = [{ package: pkg, reason: 'left out to see the check refuse the tree' }];
  await fs.writeFile(path.join(dir, 'unified-runtime.json'), JSON.stringify(ur));
  await fs.copyFile(path.join(REPO, 'manifests', 'level-zero.json'), path.join(dir, 'level-zero.json'));
  return dir;
}

/** The shipped manifests with UR's "needs" left out: what UR's own records say, without the plan's rule for the loader. */
async function manifestsWithoutNeeds(dir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const ur = await readJson(path.join(REPO, 'manifests', 'unified-runtime.json'));
  delete ur.needs;
  await fs.writeFile(path.join(dir, 'unified-runtime.json'), JSON.stringify(ur));
  await fs.copyFile(path.join(REPO, 'manifests', 'level-zero.json'), path.join(dir, 'level-zero.json'));
  return dir;
}

/** doctor's `libraries` check of a prefix, as --json gives it. */
async function librariesCheck(prefix: string): Promise<{ status: string; message: string; fix: string }> {
  const d = await fx.run(['doctor', '--json', '--prefix', prefix, '--check', 'libraries']);
  return JSON.parse(d.stdout).checks.find((c: { id: string }) => c.id === 'libraries');
}

/** Runs a fix line as a user pastes it into a shell. */
const paste = (line: string) => execa('sh', ['-c', line], { env: fx.env, extendEnv: false, reject: false, cwd: REPO });

/** `ldd` of every shared library under `dir`, with the library path the env files set: the lines that say "not found". */
async function unresolved(dir: string): Promise<string[]> {
  const libs = (await fs.readdir(dir)).filter((f) => /\.so(\.\d+)*$/.test(f));
  const out: string[] = [];
  for (const f of libs) {
    const r = await execa('ldd', [path.join(dir, f)], { env: { PATH: process.env.PATH!, LD_LIBRARY_PATH: dir }, extendEnv: false, reject: false });
    for (const l of r.stdout.split('\n').filter((x) => /not found/.test(x))) out.push(`${f}: ${l.trim()}`);
  }
  return out;
}

describe('UR from PyPI brings what its adapters need', () => {
  let prefix: string;
  const newer = () => fx.index.fixtures.urVersions.newer;

  beforeAll(async () => {
    prefix = fx.at('pypi', 'prefix');
    const r = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('newer'), '--no-smoke']);
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('installs the UMF its Requires-Dist pins and the newest tcmlib that UMF accepts', async () => {
    const receipt = await readJson(path.join(prefix, 'xpu-setup.receipt.json'));
    const ur = receipt.archives.filter((a: { component: string }) => a.component === 'unified-runtime');
    const { umf, tcmlib } = fx.index.fixtures.urClosure[newer()]!;
    expect(pkgs(ur)).toEqual([`intel-cmplr-lib-ur ${newer()}`, `tcmlib ${tcmlib}`, `umf ${umf}`]);
    for (const f of ['lib/libumf.so.1', 'lib/libtcm.so.1', 'lib/libhwloc.so.15']) {
      expect(await fs.stat(path.join(prefix, f)).then(() => true, () => false), f).toBe(true);
    }
  });

  it('leaves no library in the prefix with a dependency that does not resolve', async () => {
    expect(await unresolved(path.join(prefix, 'lib'))).toEqual([]);
  });

  it('plan --json says why each dependency is there', async () => {
    const r = await fx.run(['plan', '--json', '--prefix', fx.at('pypi', 'other'), '--component', 'unified-runtime']);
    expect(r.exitCode, r.stderr).toBe(0);
    const ur = JSON.parse(r.stdout).components.find((c: { name: string }) => c.name === 'unified-runtime');
    const umf = ur.archives.find((a: { package: string }) => a.package === 'umf');
    expect(umf.requiredBy).toEqual([`intel-cmplr-lib-ur ${newer()}: umf ==1.1.*`]);
    expect(ur.archives.find((a: { package: string }) => a.package === 'tcmlib').requiredBy).toEqual([`umf ${umf.version}: tcmlib >=1.5`]);
  });

  it('plan shows the closure as a tree', async () => {
    const r = await fx.run(['plan', '--prefix', fx.at('pypi', 'other'), '--component', 'unified-runtime']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\n {4}└ umf 1\.1\.0: umf-1\.1\.0-py2\.py3-none-manylinux_2_28_x86_64\.whl .*\(required by intel-cmplr-lib-ur 2026\.1\.0: umf ==1\.1\.\*\)/);
    expect(r.stdout).toMatch(/\n {6}└ tcmlib 1\.5\.0: .*\(required by umf 1\.1\.0: tcmlib >=1\.5\)/);
  });

  it('plan shows every archive\'s URL and whole sha256 under it (docs/commands.md: "archives with sizes, each archive\'s URL and whole sha256")', async () => {
    const args = ['plan', '--prefix', fx.at('pypi', 'other'), '--component', 'unified-runtime'];
    const [text, json] = await Promise.all([fx.run(args), fx.run([...args, '--json'])]);
    expect(text.exitCode, text.stderr).toBe(0);
    const archives = JSON.parse(json.stdout).components.flatMap((c: { archives: { filename: string; url: string; sha256: string }[] }) => c.archives);
    expect(archives.length).toBeGreaterThanOrEqual(3);
    for (const a of archives) {
      const at = text.stdout.split('\n').findIndex((l) => l.includes(a.filename));
      const [url, sha] = text.stdout.split('\n').slice(at + 1, at + 3).map((l) => l.trim());
      expect([url, sha]).toEqual([`url    ${a.url}`, `sha256 ${a.sha256}`]);
    }
    expect(text.stdout).not.toContain('…');
  });
});

describe('an index that serves no metadata files (PEP 503 HTML without data-core-metadata)', () => {
  it.each([
    ['its wheels answer Range requests', () => fx.index.noMetadataSimpleUrl, false],
    ['its wheels\' server ignores Range', () => fx.index.noRangeSimpleUrl, true],
  ] as const)('plans UMF and tcmlib from the wheels\' own METADATA: %s', async (_what, indexUrl, whole) => {
    const cacheDir = fx.at(`nometa-${whole ? 'whole' : 'range'}`);
    const r = await fx.run(['plan', '--json', '--prefix', fx.at('pypi', 'other'), '--cache-dir', cacheDir, '--component', 'unified-runtime', '--index-url', indexUrl()]);
    expect(r.exitCode, r.stderr).toBe(0);
    const ur = JSON.parse(r.stdout).components.find((c: { name: string }) => c.name === 'unified-runtime');
    const newer = fx.index.fixtures.urVersions.newer;
    const { umf, tcmlib } = fx.index.fixtures.urClosure[newer]!;
    expect(pkgs(ur.archives)).toEqual([`intel-cmplr-lib-ur ${newer}`, `tcmlib ${tcmlib}`, `umf ${umf}`]);
    expect(ur.archives.find((a: { package: string }) => a.package === 'umf').requiredBy).toEqual([`intel-cmplr-lib-ur ${newer}: umf ==1.1.*`]);
    expect(ur.notes.join('\n')).not.toMatch(/not read/);
    // Without Range, the wheels were downloaded whole for their METADATA into the download cache, where setup finds them.
    const cached = await Promise.all(
      ur.archives.map((a: { sha256: string }) => fs.stat(path.join(cacheDir, 'sha256', a.sha256.slice(0, 2), a.sha256)).then(() => true, () => false)),
    );
    expect(cached).toEqual(ur.archives.map(() => whole));
  });
});

describe('an index where the newest UR cannot be completed (a mirror without umf 1.1)', () => {
  let mirror: FixtureIndex;
  beforeAll(async () => {
    mirror = await startFixtureIndex({ fixtures: fx.index.fixtures, leaveOut: (a) => a.name === 'umf' && a.version.startsWith('1.1.') });
  });
  afterAll(async () => {
    await mirror?.close();
  });
  const planUr = (extra: string[] = []) =>
    fx.run(['plan', '--json', '--prefix', fx.at('mirror'), '--component', 'unified-runtime', '--index-url', mirror.simpleUrl, ...extra]);

  it('goes back to the newest UR whose closure the index holds, and the plan says why', async () => {
    const r = await planUr();
    expect(r.exitCode, r.stderr).toBe(0);
    const ur = JSON.parse(r.stdout).components.find((c: { name: string }) => c.name === 'unified-runtime');
    expect(ur.version).toBe('2025.3.2');
    expect(pkgs(ur.archives)).toEqual(['intel-cmplr-lib-ur 2025.3.2', 'tcmlib 1.5.0', 'umf 1.0.3']);
    expect(ur.notes).toContain(`intel-cmplr-lib-ur ${fx.index.fixtures.urVersions.newer} needs umf ==1.1.*, which this index lacks: using 2025.3.2`);
  });

  it('a version the user pinned stays pinned: the conflict is the error', async () => {
    const r = await planUr(['--require', `unified-runtime==${fx.index.fixtures.urVersions.newer}`]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`cannot satisfy intel-cmplr-lib-ur ${fx.index.fixtures.urVersions.newer}: umf ==1.1.*: only umf 1.0.3, umf 1.0.2, umf 0.11.0 can be had`);
  });
});

describe('a tree with a library that cannot load is not swapped in', () => {
  it("refuses UR adapters whose UMF a manifest leaves out, naming the library and its package; the working prefix stays", async () => {
    const prefix = fx.at('pypi', 'prefix');
    const before = await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8');
    const manifests = await manifestsSkipping(fx.at('manifests'), 'linux-x64', 'umf');
    const r = await fx.run(['--manifests', manifests, '--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('newer'), '--no-smoke']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`not followed: umf==1.1.* (needed by intel-cmplr-lib-ur ${fx.index.fixtures.urVersions.newer}): not installed: left out to see the check refuse the tree`);
    expect(r.stderr).toContain(
      'error: the new tree for ' + prefix + ' does not work here, so it was not installed: lib/libur_adapter_level_zero.so.0 needs libumf.so.1, which is neither in the new tree nor on this system (it comes with umf 1.x (PyPI umf, conda umf))',
    );
    expect(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(before);
    expect(await unresolved(path.join(prefix, 'lib'))).toEqual([]);
  });
});

describe('doctor', () => {
  it('names a library the prefix lacks and the package that brings it; its fix line, pasted, brings it back', async () => {
    const prefix = fx.at('pypi', 'prefix');
    await fs.rm(path.join(prefix, 'lib', 'libumf.so.1'));
    const check = await librariesCheck(prefix);
    expect(check.status).toBe('fail');
    expect(check.message).toContain('lib/libur_adapter_level_zero.so.0 needs libumf.so.1, which is neither in the new tree nor on this system (it comes with umf 1.x (PyPI umf, conda umf))');
    const line = /^run `(.*)` to install/.exec(check.fix)?.[1];
    expect(line, check.fix).toContain('--refresh');
    const fixed = await paste(line!);
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect((await librariesCheck(prefix)).status).toBe('ok');
  });
});

describe('UR for Windows from PyPI, set up on Linux: DLLs that import each other', () => {
  let prefix: string;
  let setup: { exitCode: number; stderr: string };
  const winArgs = (p: string) => ['--platform', 'win-x64', '--prefix', p, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('newer')];

  beforeAll(async () => {
    prefix = fx.at('win', 'prefix');
    setup = await fx.run(winArgs(prefix));
  });

  it("installs umf.dll, tcm.dll and libhwloc-15.dll beside the adapters, and says which system DLLs it took as present", async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    const receipt = await readJson(path.join(prefix, 'xpu-setup.receipt.json'));
    const { umf, tcmlib } = fx.index.fixtures.urClosure[fx.index.fixtures.urVersions.newer]!;
    expect(pkgs(receipt.archives.filter((a: { component: string }) => a.component === 'unified-runtime'))).toEqual([
      `intel-cmplr-lib-ur ${fx.index.fixtures.urVersions.newer}`,
      `tcmlib ${tcmlib}`,
      `umf ${umf}`,
    ]);
    for (const f of ['bin/ur_adapter_level_zero.dll', 'bin/umf.dll', 'bin/tcm.dll', 'bin/libhwloc-15.dll']) {
      expect(await fs.stat(path.join(prefix, f)).then(() => true, () => false), f).toBe(true);
    }
    // The adapters' ze_loader.dll is the GPU driver's, in System32: the prefix carries none.
    expect(await fs.stat(path.join(prefix, 'bin', 'ze_loader.dll')).then(() => true, () => false)).toBe(false);
    expect(joined(setup.stderr)).toContain(
      'this system is not Windows: the Windows DLLs the new tree imports (KERNEL32.dll, msvcrt.dll, OpenCL.dll, ze_loader.dll) were taken as present, as Windows 10 or later, its GPU driver or the Visual C++ Redistributable bring them',
    );
  });

  it('refuses adapters whose umf.dll a manifest leaves out, naming umf.dll and its package; the working prefix stays', async () => {
    const before = await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8');
    const manifests = await manifestsSkipping(fx.at('manifests-win'), 'win-x64', 'umf');
    const r = await fx.run(['--manifests', manifests, ...winArgs(prefix)]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `error: the new tree for ${prefix} does not work here, so it was not installed: bin/ur_adapter_level_zero.dll needs umf.dll, which is neither in the new tree nor on this system (it comes with umf (PyPI umf, conda umf))`,
    );
    expect(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(before);
    expect(await fs.stat(path.join(prefix, 'bin', 'umf.dll')).then(() => true, () => false)).toBe(true);
  });

  it('doctor names a DLL the prefix lacks and its package; its fix line, pasted, brings it back', async () => {
    await fs.rm(path.join(prefix, 'bin', 'libhwloc-15.dll'));
    const check = await librariesCheck(prefix);
    expect(check.status).toBe('fail');
    expect(check.message).toContain('bin/tcm.dll needs libhwloc-15.dll, which is neither in the new tree nor on this system (it comes with hwloc (PyPI tcmlib, conda libhwloc))');
    expect(check.message).toContain('bin/umf.dll needs libhwloc-15.dll');
    const line = /^run `(.*)` to install/.exec(check.fix)?.[1];
    expect(line, check.fix).toContain('--platform win-x64');
    const fixed = await paste(line!);
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect((await librariesCheck(prefix)).status).toBe('ok');
  });
});

describe('UR for Windows from conda, set up on Linux', () => {
  const args = (p: string) => ['--platform', 'win-x64', '--prefix', p, '--cache-dir', fx.at('cache'), '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl('bookworm')];

  it("takes the win-64 records' exact runtime and UMF, and UMF's libhwloc; every DLL finds what it imports", async () => {
    const prefix = fx.at('win-conda', 'prefix');
    const r = await fx.run(args(prefix));
    expect(r.exitCode, r.stderr).toBe(0);
    const older = fx.index.fixtures.urVersions.older;
    const receipt = await readJson(path.join(prefix, 'xpu-setup.receipt.json'));
    expect(pkgs(receipt.archives.filter((a: { component: string }) => a.component === 'unified-runtime'))).toEqual([
      `intel-cmplr-lib-rt ${older}`,
      `intel-cmplr-lib-ur ${older}`,
      'libhwloc 2.11.2',
      `umf ${fx.index.fixtures.urClosure[older]!.umf}`,
    ]);
    for (const f of ['bin/ur_adapter_level_zero.dll', 'bin/umf.dll', 'bin/libhwloc-15.dll', 'bin/sycl8.dll']) {
      expect(await fs.stat(path.join(prefix, f)).then(() => true, () => false), f).toBe(true);
    }
  });

  it("refuses the tree when UMF's libhwloc is left out, naming libhwloc-15.dll and its package", async () => {
    const manifests = await manifestsSkipping(fx.at('manifests-win-conda'), 'win-x64', 'libhwloc', 'conda');
    const prefix = fx.at('win-conda', 'no-hwloc');
    const r = await fx.run(['--manifests', manifests, ...args(prefix)]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `error: the new tree for ${prefix} does not work here, so it was not installed: bin/umf.dll needs libhwloc-15.dll, which is neither in the new tree nor on this system (it comes with hwloc (PyPI tcmlib, conda libhwloc))`,
    );
    expect(await fs.stat(prefix).then(() => true, () => false)).toBe(false);
  });
});

describe('UR from conda brings its depends', () => {
  it('takes the exact runtime and UMF the record names, and UMF\'s libhwloc; every library resolves', async () => {
    const prefix = fx.at('conda', 'prefix');
    const r = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('cache'), '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-smoke']);
    expect(r.exitCode, r.stderr).toBe(0);
    const receipt = await readJson(path.join(prefix, 'xpu-setup.receipt.json'));
    const older = fx.index.fixtures.urVersions.older;
    const ur = receipt.archives.filter((a: { component: string }) => a.component === 'unified-runtime');
    expect(pkgs(ur)).toEqual([`intel-cmplr-lib-rt ${older}`, `intel-cmplr-lib-ur ${older}`, 'libhwloc 2.11.2', `umf ${fx.index.fixtures.urClosure[older]!.umf}`]);
    expect(await unresolved(path.join(prefix, 'lib'))).toEqual([]);
  });

  it("refuses UR's constraint on Level Zero against the Level Zero the plan chose, naming both, before any download", async () => {
    const from = fx.index.requests.length;
    // Without the manifest's "needs", whose refusal of loader 1.8.12 for UR 2026 would come first.
    const manifests = await manifestsWithoutNeeds(fx.at('manifests-no-needs'));
    const r = await fx.run(['plan', '--manifests', manifests, '--prefix', fx.at('conda', 'other'), '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl('all'), '--require', 'level-zero==1.8.12']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `error: unified-runtime: intel-cmplr-lib-ur ${fx.index.fixtures.urVersions.newer} constrains level-zero >=1.20.2,<2.0a0, but level-zero planned level-zero 1.8.12`,
    );
    expect(r.stderr).toContain("--require 'level-zero>=1.20.2'");
    expect(fx.index.requests.slice(from).filter((q) => /\.(conda|whl|bz2)$/.test(q.path))).toEqual([]);
  });
});

describe('a bundle carries the closure for pip too', () => {
  let bundle: string;
  let server: StaticServer;

  beforeAll(async () => {
    bundle = fx.at('bundle');
    const r = await fx.run(['bundle', '--platform', 'linux-x64', '--out', bundle, '--conda-channel', fx.index.condaChannelUrl('newer'), '--cache-dir', fx.at('cache')]);
    expect(r.exitCode, r.stderr).toBe(0);
    server = await serveDirectory(bundle);
  });

  afterAll(async () => server?.close());

  it("serves each wheel's METADATA beside it (PEP 658) and carries conda depends in its repodata", async () => {
    const page = await fs.readFile(path.join(bundle, 'simple', 'umf', 'index.html'), 'utf8');
    expect(page).toMatch(/data-core-metadata="sha256=[0-9a-f]{64}"/);
    const repodata = await readJson(path.join(bundle, 'linux-64', 'repodata.json'));
    const devel = Object.values(repodata['packages.conda']).find((r) => (r as { name: string }).name === 'level-zero-devel') as { depends: string[] };
    expect(devel.depends.some((d) => d.startsWith('level-zero '))).toBe(true);
  });

  it('pip resolves the same closure from it as xpu-setup did', async () => {
    const dest = fx.at('pip');
    const pipEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PIP_')));
    const r = await execa(
      'python3',
      ['-m', 'pip', 'download', '--only-binary=:all:', '--platform', 'manylinux_2_28_x86_64', '--index-url', `${server.url}/simple`, 'intel-cmplr-lib-ur', '-d', dest],
      { env: { ...pipEnv, PIP_CONFIG_FILE: '/dev/null', PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_CACHE_DIR: '1', PIP_NO_INPUT: '1' }, reject: false },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const { umf, tcmlib } = fx.index.fixtures.urClosure[fx.index.fixtures.urVersions.newer]!;
    expect((await fs.readdir(dest)).sort()).toEqual([
      `intel_cmplr_lib_ur-${fx.index.fixtures.urVersions.newer}-py2.py3-none-manylinux_2_28_x86_64.whl`,
      `tcmlib-${tcmlib}-py2.py3-none-manylinux_2_28_x86_64.whl`,
      `umf-${umf}-py2.py3-none-manylinux_2_28_x86_64.whl`,
    ]);
  });
});
