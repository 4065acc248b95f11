// The installer as a process against the local index: real archives in, a usable prefix out, nothing half-written.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { shq } from '../../src/base/shell-words.js';
import { BIN, DEBIAN_12_STACK, joined, listTree, runCli } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('e2e', { require: DEBIAN_12_STACK });
/** A port nothing listens on: connection refused, like an index that is down. */
const DEAD = 'http://127.0.0.1:9';

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(() => true, () => false);
}

/** Sibling entries of the prefix other than the prefix itself: staging dirs, lock files, old trees. */
async function leftovers(prefix: string): Promise<string[]> {
  const base = path.basename(prefix);
  return (await fs.readdir(path.dirname(prefix)).catch(() => [] as string[])).filter((n) => n !== base && n.includes(base));
}

describe('setup from a conda channel (Debian 12 loader and headers repacked as conda-forge packages)', () => {
  let prefix: string;
  let cache: string;
  let first: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    prefix = fx.at('bookworm', 'prefix');
    cache = fx.at('bookworm', 'cache');
    first = await fx.run(['--prefix', prefix, '--cache-dir', cache, '--conda-channel', fx.index.condaChannelUrl('bookworm')]);
  });

  it('exits 0 and lays out headers, loader, link library, pkg-config and env files', async () => {
    expect(first.exitCode, first.stderr).toBe(0);
    for (const f of [
      'include/level_zero/ze_api.h',
      'lib/libze_loader.so.1',
      'lib/libze_loader.so',
      'lib/pkgconfig/level-zero.pc',
      'lib/pkgconfig/libze_loader.pc',
      'lib/cmake/LevelZero/LevelZeroConfig.cmake',
      'env.sh', 'env.fish', 'env.ps1', 'env.bat', 'env.json',
      'xpu-setup.receipt.json',
    ]) {
      expect(await exists(path.join(prefix, f)), f).toBe(true);
    }
    expect(first.stderr).toMatch(/level-zero 1\.8\.12 from conda/);
  });

  it('closes with lines that work when pasted: the env file, or node and the script that ran (xpu-setup is not on this PATH)', () => {
    expect(first.stderr).toContain(`To use it: . ${prefix}/env.sh   (or: eval "$(node ${shq(BIN)} env --prefix ${prefix})")`);
  });

  it('builds the runtime addon, then says plainly that no device could run anything, and still exits 0', () => {
    expect(first.stderr).toMatch(/runtime addon built: .*\/lib\/xpu-setup\/xpu_addon-[0-9a-f]+\.so/);
    // One line: the doctor says why, --verbose adds the hints (which driver libraries the loader looked for).
    expect(joined(first.stderr)).toMatch(/warning: nothing could be run: no Level Zero driver was found: .* \(`node \S+ doctor` says why; --verbose shows the hints\)/);
    expect(first.stderr).not.toMatch(/hint: the loader .* looks for the driver libraries/);
  });

  it('--require-device turns "no device" into exit 1', async () => {
    const r = await fx.run(['--prefix', prefix, '--cache-dir', cache, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--require-device']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/error: .*no Level Zero driver was found/);
  });

  it('installs the Unified Runtime libraries from the wheel on the PyPI index', async () => {
    expect(await exists(path.join(prefix, 'lib/libur_loader.so.0'))).toBe(true);
    expect(await exists(path.join(prefix, 'lib/libur_adapter_level_zero.so.0'))).toBe(true);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    const ur = receipt.components.find((c: { name: string }) => c.name === 'unified-runtime');
    // Over Debian 12's loader, the newest UR whose adapters load with it: 2025's (2026's call what loader 1.25 added).
    expect(ur.version).toBe('2025.3.2');
    expect(ur.source).toMatch(/^pypi /);
  });

  it('gives a prefix where pkg-config builds a zeInit program that the real loader answers with 0x78000001', async () => {
    const src = fx.at('zeinit.c');
    await fs.writeFile(src, '#include <stdio.h>\n#include <ze_api.h>\nint main(void){printf("0x%x\\n",(unsigned)zeInit(0));return 0;}\n');
    const exe = fx.at('zeinit');
    const script = `. '${prefix}/env.sh' && cc '${src}' $(pkg-config --cflags --libs level-zero) -o '${exe}' && '${exe}' && ldd '${exe}' | grep libze_loader`;
    const r = await execa('sh', ['-c', script], { env: { PATH: process.env.PATH! }, extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    const [answer, ldd] = r.stdout.split('\n');
    expect(answer).toBe('0x78000001');
    expect(ldd).toContain(`${prefix}/lib/libze_loader.so.1`);
  });

  it('records every file with its sha256 in the receipt, and the archives it came from', async () => {
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    const served = fx.index.packages.filter((p) => receipt.archives.some((a: { url: string }) => a.url === p.url));
    expect(served.length).toBe(receipt.archives.length);
    for (const a of receipt.archives) expect(served.find((s) => s.url === a.url)!.sha256).toBe(a.sha256);
    const header = receipt.files.find((f: { path: string }) => f.path === 'include/level_zero/ze_api.h');
    const bytes = await fs.readFile(path.join(prefix, 'include/level_zero/ze_api.h'));
    expect(header.sha256).toBe((await import('node:crypto')).createHash('sha256').update(bytes).digest('hex'));
  });

  it('is a verified no-op the second time', async () => {
    const before = await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8');
    const again = await fx.run(['--prefix', prefix, '--cache-dir', cache, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    const doc = JSON.parse(again.stdout);
    expect(doc.changed).toBe(false);
    expect(again.stderr).toMatch(/up to date/);
    expect(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(before);
  });

  it('plan says "nothing to do" on the up-to-date prefix, and +/- against another channel', async () => {
    const same = await fx.run(['plan', '--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm')]);
    expect(same.exitCode, same.stderr).toBe(0);
    expect(same.stdout).toMatch(new RegExp(`\\nnothing to do: ${prefix} is up to date \\(level-zero 1\\.8\\.12, unified-runtime [^)]+\\)\\nthen: the recorded build, probe and smoke answers, if the drivers and environment they came from are unchanged; else build the runtime addon, probe the devices, run the smoke kernel\\n?$`));
    // Nothing to do is not followed by a list of work as if it were to be done.
    expect(same.stdout).not.toMatch(/nothing to do: .*\nthen: build/);
    const other = await fx.run(['plan', '--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('trixie')]);
    expect(other.exitCode, other.stderr).toBe(0);
    expect(other.stdout).toContain(`setup would change ${prefix}:\n  - level-zero 1.8.12 (conda ${fx.index.condaChannelUrl('bookworm')})\n  + level-zero ${fx.index.fixtures.l0Versions.trixie} (conda ${fx.index.condaChannelUrl('trixie')})`);
    const json = JSON.parse((await fx.run(['plan', '--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json'])).stdout);
    expect(json.changes).toMatchObject({ upToDate: true, add: [], remove: [], damaged: [] });
  });

  it('plan takes every option of setup and says what setup would do with them (docs/commands.md, "Options of setup and plan")', async () => {
    const flags = ['--refdriver', '--no-smoke', '--require-device', '--verify', '--refresh', '--max-unpacked', '1GiB', '--max-ratio', '300', '--probe'];
    const r = await fx.run(['plan', '--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm'), ...flags]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\nthen: (?:the recorded .*; else )?build the CPU reference driver, build the runtime addon, probe the devices \(no device is an error\)/);
    const json = JSON.parse((await fx.run(['plan', '--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-probe', '--dry-run', '--json'])).stdout);
    expect(json.then).toMatchObject({ skipped: '--no-probe: nothing was built, probed or run', refdriver: false, smoke: false });
    // --verify reads every file: an edit that kept size and mtime is seen by plan as by setup.
    const header = path.join(prefix, 'include', 'level_zero', 'ze_api.h');
    const stamp = fx.at('ze_api.h.stamp');
    // touch -r copies the timestamp to the nanosecond, which fs.utimes cannot promise.
    await execa('touch', ['-r', header, stamp]);
    const text = await fs.readFile(header, 'utf8');
    await fs.writeFile(header, text.replace('#define', '#definE'));
    await execa('touch', ['-r', stamp, header]);
    const trusting = JSON.parse((await fx.run(['plan', '--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json'])).stdout);
    expect(trusting.changes.upToDate).toBe(true);
    const verifying = JSON.parse((await fx.run(['plan', '--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json', '--verify'])).stdout);
    expect(verifying.changes.damaged.map((d: { path: string }) => d.path)).toEqual(['include/level_zero/ze_api.h']);
    await fs.writeFile(header, text);
    await execa('touch', ['-r', stamp, header]);
    // A bad value is refused by plan as by setup.
    const bad = await fx.run(['plan', '--prefix', prefix, '--max-unpacked', 'lots']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--max-unpacked "lots" is not a size/);
  });

  it('reinstalls when an installed file was changed, restoring it', async () => {
    const hdr = path.join(prefix, 'include/level_zero/ze_api.h');
    const original = await fs.readFile(hdr);
    await fs.writeFile(hdr, 'tampered');
    const r = await fx.run(['--prefix', prefix, '--cache-dir', cache, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).changed).toBe(true);
    expect(await fs.readFile(hdr)).toEqual(original);
    expect(await leftovers(prefix)).toEqual([]);
  });

  it('cleans up after a run that was killed: dead staging trees, an old tree, a stale lock', async () => {
    const parent = path.dirname(prefix);
    const base = path.basename(prefix);
    await fs.mkdir(path.join(parent, `.${base}.xpu-setup-staging-dead01`, 'lib'), { recursive: true });
    await fs.writeFile(path.join(parent, `.${base}.xpu-setup-staging-dead01`, 'lib', 'half.so'), 'half');
    await fs.mkdir(path.join(parent, `${base}.xpu-setup-old-dead02`));
    // A lock whose owner no longer exists (pid 2^22 + 1 is above Linux's default pid_max).
    await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ pid: 4194305, since: '2026-01-01T00:00:00Z' }));
    const r = await fx.run(['--prefix', prefix, '--cache-dir', cache, '--conda-channel', fx.index.condaChannelUrl('bookworm')]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await leftovers(prefix)).toEqual([]);
  });

  it('puts the old prefix back when a run died between moving it aside and moving the new one in', async () => {
    const aside = `${prefix}.xpu-setup-old-dead03`;
    await fs.rename(prefix, aside);
    const r = await fx.run(['--prefix', prefix, '--cache-dir', cache, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).changed).toBe(false);
    expect(await leftovers(prefix)).toEqual([]);
  });

  it('prints the environment for each shell', async () => {
    const sh = await fx.run(['env', '--prefix', prefix, '--shell', 'sh']);
    expect(sh.exitCode).toBe(0);
    expect(sh.stdout).toContain(`export LEVEL_ZERO_V1_SDK_PATH='${prefix}'`);
    const json = await fx.run(['env', '--prefix', prefix, '--json']);
    expect(JSON.parse(json.stdout).vars.find((v: { name: string }) => v.name === 'LD_LIBRARY_PATH').value).toBe(`${prefix}/lib`);
    const none = await fx.run(['env', '--prefix', fx.at('nothing-here')]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain(`hint: install first: node ${shq(BIN)} --prefix ${fx.at('nothing-here')}`);
  });
});

describe('index variants', () => {
  it('turns 1.20.6 from .tar.bz2 packages away before the swap (its loader cannot load on Debian 12) and installs the next source, which loads', async () => {
    const prefix = fx.at('tarbz2-next', 'prefix');
    const r = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('cache'), '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('tarbz2'), '--no-probe']);
    expect(r.stderr).toMatch(/level-zero-1\.20\.6-[^ ]+\.tar\.bz2/);
    // The staged tree is tried before the swap: trixie's loader needs a newer libstdc++ than Debian 12 has.
    expect(joined(r.stderr)).toMatch(/warning: level-zero: conda level-zero 1\.20\.6[^:]*: lib\/libze_loader\.so(\.1)? does not load on this system: .*GLIBCXX_3\.4\.\d+.*: planning again without it/);
    expect(r.exitCode, r.stderr).toBe(0);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')) as { components: { name: string; version: string; source: string }[] };
    expect(receipt.components.map((c) => `${c.name} ${c.version} ${c.source}`)).toEqual(['level-zero 1.8.12 apt Debian GNU/Linux 12 (bookworm)']);
    expect(await leftovers(prefix)).toEqual([]);
  });

  it('refuses 1.20.6 from .tar.bz2 packages before anything is replaced when no other source may serve (--source conda)', async () => {
    const prefix = fx.at('tarbz2', 'prefix');
    const r = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('cache-conda'), '--component', 'level-zero', '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl('tarbz2')]);
    expect(r.stderr).toMatch(/level-zero-1\.20\.6-[^ ]+\.tar\.bz2/);
    expect(r.exitCode).toBe(1);
    expect(joined(r.stderr)).toMatch(/lib\/libze_loader\.so(\.1)? does not load on this system: needs GLIBCXX_3\.4\.\d+, which this system's libstdc\+\+ does not provide/);
    expect(await exists(prefix)).toBe(false);
    expect(await leftovers(prefix)).toEqual([]);
  });

  it('shows what is already installed outside the prefix (Debian libze1/libze-dev on this machine)', async () => {
    const r = await fx.run(['plan', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json']);
    const existing = JSON.parse(r.stdout).existing;
    expect(existing.zeLoader).toMatchObject({ path: '/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0', version: '1.8.12-1' });
    expect(existing.zeHeaders).toContainEqual(expect.objectContaining({ includeDir: '/usr/include', apiVersion: '1.4', hasIpVersionExt: false }));
    const human = await fx.run(['plan', '--conda-channel', fx.index.condaChannelUrl('bookworm')]);
    expect(human.stdout).toMatch(/already on this machine:\n\s+Level Zero loader \/usr\/lib\/x86_64-linux-gnu\/libze_loader\.so\.1\.8\.0 \(1\.8\.12-1\)/);
  });

  it('reads repodata.json.zst where the channel has it, and plain repodata.json where it does not', async () => {
    const before = fx.index.requests.length;
    const zst = await fx.run(['plan', '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('trixie'), '--json']);
    expect(zst.exitCode, zst.stderr).toBe(0);
    const plain = await fx.run(['plan', '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('tarbz2'), '--json']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    const paths = fx.index.requests.slice(before).map((r) => r.path);
    expect(paths).toContain('/conda/trixie/linux-64/repodata.json.zst');
    expect(paths).not.toContain('/conda/trixie/linux-64/repodata.json');
    expect(paths).toContain('/conda/tarbz2/linux-64/repodata.json');
    expect(JSON.parse(zst.stdout).components[0].version).toBe(JSON.parse(plain.stdout).components[0].version);
  });

  it('follows repodata v2 base_url to where the files are', async () => {
    const r = await fx.run(['plan', '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('v2'), '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const urls = JSON.parse(r.stdout).components[0].archives.map((a: { url: string }) => a.url);
    expect(urls.every((u: string) => u.includes('/mirror/v2/linux-64/'))).toBe(true);
  });

  it('chooses the highest version and prefers .conda when a channel has both', async () => {
    const r = await fx.run(['plan', '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('all'), '--json']);
    const c = JSON.parse(r.stdout).components[0];
    expect(c.version).toBe(fx.index.fixtures.l0Versions.trixie);
    expect(c.archives.every((a: { filename: string }) => a.filename.endsWith('.conda'))).toBe(true);
  });

  it.each([
    ['PEP 691 JSON', () => fx.index.simpleUrl],
    ['PEP 503 HTML only', () => fx.index.htmlOnlySimpleUrl],
    ['the JSON API', () => fx.index.jsonApiUrl],
  ])('resolves intel-cmplr-lib-ur through %s, skipping the yanked release', async (_name, url) => {
    const r = await runCli(['plan', '--component', 'unified-runtime', '--source', 'pypi', '--index-url', url(), '--json'], { ...fx.env, XPU_SETUP_REQUIRE: '' });
    expect(r.exitCode, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout).components[0];
    expect(c.version).toBe(fx.index.fixtures.urVersions.newer);
    expect(c.archives[0].filename).toMatch(/manylinux_2_28_x86_64\.whl$/);
    expect(c.archives[0].sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('Windows layouts, planned and installed on Linux', () => {
  it('maps conda Library/ and the win_amd64 wheel into include/, lib/, bin/, leaving the package\'s ze_loader.dll out', async () => {
    const prefix = fx.at('win', 'prefix');
    const r = await fx.run(['--platform', 'win-x64', '--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm')]);
    expect(r.exitCode, r.stderr).toBe(0);
    const tree = await listTree(prefix);
    for (const f of ['include/level_zero/ze_api.h', 'lib/ze_loader.lib', 'bin/ur_loader.dll', 'bin/ur_adapter_level_zero.dll', 'env.bat', 'env.ps1']) {
      expect(tree, f).toContain(f);
    }
    // The level-zero package carries Library/bin/ze_loader.dll and its layers: the adapters beside them would load
    // that copy before System32's, which SYCL's proxy loader and the GPU driver count on.
    expect(tree.filter((f) => /^bin\/ze_/.test(f))).toEqual([]);
    expect(r.stderr).toContain("ze_loader.dll comes with the Intel GPU driver (System32), the only one SYCL's proxy loader trusts");
    expect(tree.some((f) => f.startsWith('Library'))).toBe(false);
    const bat = await fs.readFile(path.join(prefix, 'env.bat'), 'utf8');
    expect(bat).toContain(`(set "INCLUDE=${prefix}/include;%INCLUDE%")`);
    expect(bat).toContain(`set "LEVEL_ZERO_V1_SDK_PATH=${prefix}"`);

    // Asked for, it comes with its layers, and the request remembers it: a bare re-run keeps it, --no-include-loader-dll drops it.
    const asked = await fx.run(['--platform', 'win-x64', '--prefix', prefix, '--cache-dir', fx.at('cache'), '--include-loader-dll']);
    expect(asked.exitCode, asked.stderr).toBe(0);
    expect((await listTree(prefix)).filter((f) => /^bin\/ze_/.test(f))).toEqual(['bin/ze_loader.dll', 'bin/ze_tracing_layer.dll', 'bin/ze_validation_layer.dll']);
    const again = await fx.run(['--platform', 'win-x64', '--prefix', prefix, '--cache-dir', fx.at('cache')]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await listTree(prefix)).toContain('bin/ze_loader.dll');
    const dropped = await fx.run(['--platform', 'win-x64', '--prefix', prefix, '--cache-dir', fx.at('cache'), '--no-include-loader-dll']);
    expect(dropped.exitCode, dropped.stderr).toBe(0);
    expect((await listTree(prefix)).filter((f) => /^bin\/ze_/.test(f))).toEqual([]);
  });

  it('never puts a Windows prefix where this machine\'s own default prefix is', async () => {
    const r = await fx.run(['plan', '--platform', 'win-x64', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json']);
    expect(JSON.parse(r.stdout).prefix).toBe(path.join(fx.env.HOME!, '.local/share/xpu-setup-win-x64'));
    const native = await fx.run(['plan', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json']);
    expect(JSON.parse(native.stdout).prefix).toBe(path.join(fx.env.HOME!, '.local/share/xpu-setup'));
  });

  it('installs the pinned L0 Windows SDK zip, checking the manifest hash', async () => {
    const sdk = fx.index.packages.find((p) => p.index === 'github')!;
    const manifests = fx.at('manifests-sdk');
    await fs.mkdir(manifests, { recursive: true });
    const l0 = JSON.parse(await fs.readFile(path.join(__dirname, '../../manifests/level-zero.json'), 'utf8'));
    const src = l0.platforms['win-x64'].sources.find((s: { kind: string }) => s.kind === 'url');
    Object.assign(src, { url: fx.index.sdkUrl, sha256: sdk.sha256, version: sdk.version });
    await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
    const prefix = fx.at('sdk', 'prefix');
    const r = await fx.run(['--platform', 'win-x64', '--prefix', prefix, '--cache-dir', fx.at('cache'), '--manifests', manifests, '--source', 'url', '--component', 'level-zero']);
    expect(r.exitCode, r.stderr).toBe(0);
    const tree = await listTree(prefix);
    expect(tree).toContain('include/level_zero/ze_api.h');
    expect(tree).toContain('lib/ze_loader.lib');
    expect(r.stderr).toMatch(/ze_loader\.dll comes with the Intel GPU driver/);

    src.sha256 = 'f'.repeat(64);
    await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
    const bad = await fx.run(['--platform', 'win-x64', '--prefix', fx.at('sdk', 'bad'), '--cache-dir', fx.at('sdk-cache'), '--manifests', manifests, '--source', 'url', '--component', 'level-zero']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain(`sha256 mismatch for ${fx.index.sdkUrl}: expected ${'f'.repeat(64)}, got ${sdk.sha256}`);
  });
});

describe('failures leave nothing behind', () => {
  const args = (prefix: string, cache: string, channel: string) => ['--prefix', prefix, '--cache-dir', cache, '--component', 'level-zero', '--source', 'conda', '--conda-channel', channel];

  /** No prefix, nothing beside it, no partial download; verified archives may stay cached for the next run. */
  async function expectClean(prefix: string, cache: string, badSha256?: string): Promise<void> {
    expect(await exists(prefix)).toBe(false);
    expect(await leftovers(prefix)).toEqual([]);
    const tree = await listTree(cache);
    expect(tree.filter((f) => f.endsWith('.part'))).toEqual([]);
    if (badSha256) expect(tree.some((f) => f.endsWith(badSha256))).toBe(false);
  }

  it('a corrupted download: exit 1, the URL, both hashes, the remedy; no prefix, no cached file', async () => {
    const prefix = fx.at('corrupt', 'prefix');
    const cache = fx.at('corrupt', 'cache');
    fx.index.fault(/level-zero-devel-.*\.conda$/, 'corrupt');
    try {
      const r = await fx.run(args(prefix, cache, fx.index.condaChannelUrl('trixie')));
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/error: sha256 mismatch for http:\/\/127\.0\.0\.1:\d+\/conda\/trixie\/linux-64\/level-zero-devel-[^ ]+\.conda: expected [0-9a-f]{64}, got [0-9a-f]{64}/);
      expect(r.stderr).toMatch(/hint: nothing was installed/);
      expect(await exists(prefix)).toBe(false);
      expect(await leftovers(prefix)).toEqual([]);
      // The corrupted bytes are gone. The other archive's download stops with the failure: whatever of it had
      // arrived stays as a partial file with its validators, for the next run to resume.
      const bad = /expected ([0-9a-f]{64})/.exec(r.stderr)![1]!;
      const tree = await listTree(cache);
      expect(tree.filter((f) => f.includes(bad))).toEqual([]);
      for (const part of tree.filter((f) => f.endsWith('.part'))) expect(tree).toContain(`${part}.json`);
    } finally {
      fx.index.clearFaults();
    }
  });

  it('a truncated download: exit 1 naming the URL', async () => {
    const prefix = fx.at('trunc', 'prefix');
    const cache = fx.at('trunc', 'cache');
    fx.index.fault(/level-zero-1\.20\.6.*\.conda$/, 'truncate');
    try {
      // Two attempts a short back-off apart show the decision (retried, then given up) without waiting out six (13 s).
      const r = await runCli(args(prefix, cache, fx.index.condaChannelUrl('trixie')), { ...fx.env, XPU_SETUP_HTTP_ATTEMPTS: '2', XPU_SETUP_HTTP_BACKOFF_SECONDS: '0.02' });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/error: the connection to http:\/\/127\.0\.0\.1:\d+\/conda\/trixie\/linux-64\/level-zero-1\.20\.6[^ ]* broke after \d+ bytes/);
      expect(r.stderr).toMatch(/hint: the connection broke; run the command again/);
      expect(r.stderr).toMatch(/gave up after 2 attempts/);
      const truncated = fx.index.packages.find((p) => /trixie\/linux-64\/level-zero-1\.20\.6.*\.conda$/.test(p.url))!;
      expect(await exists(prefix)).toBe(false);
      expect(await leftovers(prefix)).toEqual([]);
      // The bytes that did arrive wait, named by the expected hash, for the next run to resume; nothing enters the store.
      const tree = await listTree(cache);
      expect(tree.filter((f) => f.endsWith('.part'))).toEqual([`tmp/${truncated.sha256}.part`]);
      expect(tree.some((f) => f.startsWith('sha256/') && f.endsWith(truncated.sha256))).toBe(false);
      expect(tree.some((f) => f.endsWith('.lock'))).toBe(false);
    } finally {
      fx.index.clearFaults();
    }
  });

  it('an unknown package: the named channel answers "not here", no other source is allowed: exit 1 naming the channel', async () => {
    const manifests = fx.at('manifests-unknown');
    await fs.mkdir(manifests, { recursive: true });
    const l0 = JSON.parse(await fs.readFile(path.join(__dirname, '../../manifests/level-zero.json'), 'utf8'));
    l0.platforms['linux-x64'].sources[0].packages = ['level-zero', 'no-such-package-devel'];
    await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
    const prefix = fx.at('unknown', 'prefix');
    const cache = fx.at('unknown', 'cache');
    const r = await fx.run([...args(prefix, cache, fx.index.condaChannelUrl('bookworm')), '--manifests', manifests]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/error: no source could provide level-zero for linux-x64/);
    expect(r.stderr).toMatch(/hint: tried level-zero: conda http:\/\/127\.0\.0\.1:\d+\/conda\/bookworm: level-zero \+ no-such-package-devel not found in http:\/\/127\.0\.0\.1:\d+\/conda\/bookworm \(linux-64\)/);
    await expectClean(prefix, cache);
  });

  it('an unreachable index: exit 1 naming the URL, with a network hint', async () => {
    const prefix = fx.at('dead', 'prefix');
    const cache = fx.at('dead', 'cache');
    const r = await fx.run(args(prefix, cache, `${DEAD}/conda-forge`));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`cannot reach ${DEAD}/conda-forge/linux-64/repodata_shards.msgpack.zst (ECONNREFUSED)`);
    expect(r.stderr).toMatch(/hint: xpu-setup never falls back from a source you named \(--conda-channel\)/);
    expect(r.stderr).toMatch(/hint: fix the URL or the network/);
    await expectClean(prefix, cache);
  });

  it('plan gives setup\'s verdict when nothing is installable (--source url on Linux): exit 1, NO_SOURCE', async () => {
    const prefix = fx.at('nothing', 'prefix');
    for (const cmd of [['plan'], ['setup'], ['setup', '--dry-run']]) {
      const r = await fx.run([...cmd, '--prefix', prefix, '--source', 'url', '--json']);
      expect(r.exitCode, cmd.join(' ')).toBe(1);
      expect(JSON.parse(r.stdout), cmd.join(' ')).toMatchObject({ ok: false, error: { code: 'NO_SOURCE' } });
    }
    expect(await exists(prefix)).toBe(false);
  });

  it('an unknown component is a usage error (exit 2)', async () => {
    const r = await fx.run(['plan', '--component', 'cuda']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown component "cuda"[\s\S]*hint: components: gpu-driver, level-zero, unified-runtime/);
  });

  it('refuses to replace a non-empty directory it did not make, in plan as in setup, before any request', async () => {
    const prefix = fx.at('foreign');
    await fs.mkdir(prefix, { recursive: true });
    await fs.writeFile(path.join(prefix, 'precious.txt'), 'keep me');
    const before = fx.index.requests.length;
    const r = await fx.run(args(prefix, fx.at('cache'), fx.index.condaChannelUrl('bookworm')));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/exists, is not empty, and was not made by xpu-setup/);
    const p = await fx.run(['plan', ...args(prefix, fx.at('cache'), fx.index.condaChannelUrl('bookworm'))]);
    expect(p.exitCode).toBe(1);
    expect(p.stderr).toMatch(/exists, is not empty, and was not made by xpu-setup/);
    expect(fx.index.requests.length).toBe(before);
    expect(await fs.readFile(path.join(prefix, 'precious.txt'), 'utf8')).toBe('keep me');
  });
});

describe('--json', () => {
  it('prints exactly one JSON document on stdout, also on failure', async () => {
    const ok = await fx.run(['plan', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--json']);
    expect(() => JSON.parse(ok.stdout)).not.toThrow();
    const bad = await fx.run(['--prefix', fx.at('j'), '--component', 'level-zero', '--source', 'conda', '--conda-channel', `${DEAD}/x`, '--json']);
    expect(bad.exitCode).toBe(1);
    const doc = JSON.parse(bad.stdout);
    expect(doc).toMatchObject({ ok: false, error: { code: 'SOURCE_FAILED' } });
  });
});

describe('the apt fallback on this Debian machine', () => {
  it('--source apt is what was asked: an apt package this release lacks, then another, is no fallback, and says why truly', async () => {
    // Two apt sources, as the GPU driver has (its newer package name first): this Debian has only the second.
    const manifests = fx.at('manifests-two-apt');
    await fs.mkdir(manifests, { recursive: true });
    const l0 = JSON.parse(await fs.readFile(path.join(__dirname, '../../manifests/level-zero.json'), 'utf8'));
    const apt = l0.platforms['linux-x64'].sources.find((x: { kind: string }) => x.kind === 'apt');
    l0.platforms['linux-x64'].sources = [{ ...apt, packages: ['libze-intel-gpu1'] }, apt];
    await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
    const { XPU_SETUP_INDEX_URL: _named, ...defaultsEnv } = fx.env;
    const r = await runCli(['plan', '--json', '--prefix', fx.at('apt-asked'), '--manifests', manifests, '--component', 'level-zero', '--source', 'apt'], defaultsEnv);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/falling back/);
    const plan = JSON.parse(r.stdout) as { components: { name: string; source: string; fallbackFrom?: string[]; attempts: { reason: string }[] }[] };
    const c = plan.components.find((x) => x.name === 'level-zero')!;
    expect(c).toMatchObject({ source: 'apt' });
    expect(c.fallbackFrom).toBeUndefined();
    expect(c.attempts[0]!.reason).toMatch(/: this machine's apt lists no package libze-intel-gpu1: not in this release, or its package lists are older than the package \(apt-get update\)$/);
  });

  it('with the default channel unreachable, installs Level Zero 1.8.12 from Debian, says so loudly and records it', async () => {
    // The shipped manifest with its default channel replaced by a dead one: a default source, not one the user named.
    const manifests = fx.at('manifests-dead');
    await fs.mkdir(manifests, { recursive: true });
    const l0 = JSON.parse(await fs.readFile(path.join(__dirname, '../../manifests/level-zero.json'), 'utf8'));
    l0.platforms['linux-x64'].sources[0].channels = [`${DEAD}/conda-forge`];
    await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
    const prefix = fx.at('apt', 'prefix');
    const { XPU_SETUP_INDEX_URL: _named, ...defaultsEnv } = fx.env;
    const r = await runCli(['--prefix', prefix, '--cache-dir', fx.at('apt', 'cache'), '--manifests', manifests, '--component', 'level-zero'], defaultsEnv);
    expect(r.exitCode, r.stderr).toBe(0);
    // The fallback is a note; what it costs is one short warning, said once.
    expect(r.stderr).toMatch(/note: level-zero: falling back to apt 1\.8\.12 because conda http:\/\/127\.0\.0\.1:9\/conda-forge: cannot reach .*ECONNREFUSED/);
    expect(r.stderr).toMatch(/lacks ze_device_ip_version_ext_t/);
    expect(r.stderr).toMatch(/warning: level-zero 1\.8\.12 came from a fallback source \(apt Debian.*\); recorded in the receipt/);
    expect(r.stderr.match(/^warning: level-zero/gm)).toHaveLength(1);
    expect(await exists(path.join(prefix, 'lib/libze_loader.so.1'))).toBe(true);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.components).toEqual([
      expect.objectContaining({ name: 'level-zero', version: '1.8.12', source: expect.stringMatching(/^apt Debian/), fallbackFrom: [expect.stringMatching(/conda-forge: cannot reach/)] }),
    ]);
  });
});
