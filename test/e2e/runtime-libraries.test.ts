// The runtime-library rule end to end: conda-forge's GCC 14 Level Zero brings libstdcxx only where this machine's libstdc++ lacks what its loader needs.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { InstallPlan } from '../../src/records/plan.js';
import { fromArchiveFiles, settleRuntime } from '../../src/plan/runtime-libraries.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { DownloadCache } from '../../src/cache/store.js';
import { compileElf, libstdcxxNodes, RUNTIME_FIXTURE, versionedDouble } from '../support/packages.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('runtime-libraries');
let channel: string;
const cache = () => fx.at('cache');
const { l0, gcc } = RUNTIME_FIXTURE;
const RUNTIME = ['_libgcc_mutex', '_openmp_mutex', 'libgcc', 'libgomp', 'libstdcxx'];

beforeAll(async () => {
  channel = fx.index.condaChannelUrl('gcc14');
});

interface JsonArchive {
  package: string;
  version: string;
  runtime?: { install?: boolean; why?: string };
}
const levelZero = (plan: { components: { name: string; archives: JsonArchive[]; leftToHost?: JsonArchive[] }[] }) => plan.components.find((c) => c.name === 'level-zero')!;
const readJson = async (p: string) => JSON.parse(await fs.readFile(p, 'utf8'));
const exists = (p: string) => fs.lstat(p).then(() => true, () => false);
// Setup here stops after the install (--no-probe): the fixture libstdc++ is a test double that no program may load.
const setup = (prefix: string, ...more: string[]) =>
  fx.run(['--prefix', prefix, '--cache-dir', cache(), '--component', 'level-zero', '--conda-channel', channel, '--no-probe', ...more]);

describe('level-zero 1.29.0, built with GCC 14, on Debian 12 (libstdc++ up to GLIBCXX_3.4.30)', () => {
  const prefix = () => fx.at('gcc14', 'prefix');

  it('plan lists the runtime packages of the closure as decided from the binaries once they are fetched', async () => {
    const r = await fx.run(['plan', '--json', '--prefix', prefix(), '--cache-dir', cache(), '--component', 'level-zero', '--conda-channel', channel]);
    expect(r.exitCode, r.stderr).toBe(0);
    const c = levelZero(JSON.parse(r.stdout));
    expect(c.archives.filter((a) => a.runtime).map((a) => a.package).sort()).toEqual(RUNTIME);
    expect(c.archives.filter((a) => a.runtime).every((a) => a.runtime!.install === undefined)).toBe(true);
    const text = await fx.run(['plan', '--prefix', prefix(), '--cache-dir', cache(), '--component', 'level-zero', '--conda-channel', channel]);
    expect(text.stdout).toMatch(
      new RegExp(`└ libstdcxx ${gcc.version}: libstdcxx-${gcc.version}-${gcc.libstdcxxBuild}\\.conda .*\\[runtime library: installed only if this machine lacks what the binaries need \\(decided once the other archives are fetched\\)\\]  \\(required by level-zero ${l0}: libstdcxx >=14\\)`),
    );
  });

  it('setup installs libstdcxx because the loader needs GLIBCXX_3.4.33, and leaves libgcc and OpenMP to the host', async () => {
    const r = await setup(prefix());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`runtime library libstdcxx ${gcc.version}: needs GLIBCXX_3.4.33, host has 3.4.30: installed`);
    expect(r.stderr).toContain(`runtime library libgcc ${gcc.version}: satisfied by the host: not installed`);
    expect(await fs.readlink(path.join(prefix(), 'lib', 'libstdc++.so.6'))).toBe('libstdc++.so.6.0.33');
    expect(await exists(path.join(prefix(), 'lib', 'libgcc_s.so.1'))).toBe(false);
    expect(await exists(path.join(prefix(), 'lib', 'libgomp.so.1'))).toBe(false);
    const receipt = await readJson(path.join(prefix(), 'xpu-setup.receipt.json'));
    expect(receipt.archives.map((a: JsonArchive) => a.package).sort()).toEqual(['level-zero', 'level-zero-devel', 'libstdcxx']);
    const recorded = levelZero(receipt.plan);
    expect(recorded.archives.find((a) => a.package === 'libstdcxx')!.runtime).toEqual({ install: true, why: 'needs GLIBCXX_3.4.33, host has 3.4.30' });
    expect(recorded.leftToHost!.map((a) => a.package).sort()).toEqual(['_libgcc_mutex', '_openmp_mutex', 'libgcc', 'libgomp']);
  });

  it('a second run decides the same from the cache and changes nothing; plan then shows the decision', async () => {
    const again = await setup(prefix());
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/up to date|nothing to do/);
    const r = await fx.run(['plan', '--prefix', prefix(), '--cache-dir', cache(), '--component', 'level-zero', '--conda-channel', channel, '--refresh']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('[runtime library: needs GLIBCXX_3.4.33, host has 3.4.30: installed]');
    expect(r.stdout).toContain(`runtime library libgcc ${gcc.version}: satisfied by the host: not installed`);
    expect(r.stdout).toContain(`nothing to do: ${prefix()} is up to date`);
  });

  it('a lockfile keeps every runtime package undecided, for the machine that installs it to decide', async () => {
    const lockfile = fx.at('gcc14', 'xpu-setup.lock.json');
    const r = await fx.run(['lock', '--lockfile', lockfile, '--component', 'level-zero', '--conda-channel', channel]);
    expect(r.exitCode, r.stderr).toBe(0);
    const c = levelZero((await readJson(lockfile)).platforms['linux-x64']);
    expect(c.archives.filter((a) => a.runtime).map((a) => [a.package, a.runtime]).sort()).toEqual(RUNTIME.map((p) => [p, {}]));
    const locked = await fx.run(['--locked', '--lockfile', lockfile, '--prefix', fx.at('gcc14', 'locked'), '--cache-dir', cache(), '--no-probe']);
    expect(locked.exitCode, locked.stderr).toBe(0);
    expect(locked.stderr).toContain(`runtime library libstdcxx ${gcc.version}: needs GLIBCXX_3.4.33, host has 3.4.30: installed`);
  });
});

describe('a host that already has what the binaries need', () => {
  it("Debian 12's own loader 1.8.12 (needs up to GLIBCXX_3.4.29) gets no runtime package, and none is downloaded", async () => {
    const prefix = fx.at('bookworm', 'prefix');
    const from = fx.index.requests.length;
    const r = await setup(prefix, '--require', 'level-zero==1.8.12');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`runtime library libstdcxx ${gcc.version}: satisfied by the host: not installed`);
    expect(await exists(path.join(prefix, 'lib', 'libstdc++.so.6'))).toBe(false);
    const receipt = await readJson(path.join(prefix, 'xpu-setup.receipt.json'));
    expect(receipt.archives.map((a: JsonArchive) => a.package).sort()).toEqual(['level-zero', 'level-zero-devel']);
    const fetched = fx.index.requests.slice(from).map((q) => q.path).filter((p) => /\.(conda|tar\.bz2)$/.test(p));
    expect(fetched.filter((p) => RUNTIME.some((n) => path.basename(p).startsWith(`${n}-`)))).toEqual([]);
  });

  it('a host libstdc++ newer than the package\'s (GCC 15, GLIBCXX_3.4.34) is not shadowed by libstdcxx 14.2.0', async () => {
    // The newer host library is a test double on LD_LIBRARY_PATH of this process's decision only (no program loads it).
    const newer = fx.at('gcc15');
    await compileElf(versionedDouble('libstdc++.so.6', [...libstdcxxNodes(14), 'GLIBCXX_3.4.34']), newer);
    // Planned against an empty cache, so undecided; decided here from the archives earlier tests fetched.
    const r = await fx.run(['plan', '--json', '--prefix', fx.at('gcc15', 'prefix'), '--cache-dir', fx.at('gcc15', 'cache'), '--component', 'level-zero', '--conda-channel', channel]);
    const plan = JSON.parse(r.stdout) as InstallPlan;
    const deps = { ...realDeps(), env: { ...fx.env, LD_LIBRARY_PATH: newer } };
    const store = new DownloadCache(cache());
    const decided = await settleRuntime(plan, deps, [], fromArchiveFiles(async (a) => (await store.lookup(a.sha256))?.path));
    const c = decided.components.find((x) => x.name === 'level-zero')!;
    expect(c.archives.map((a) => a.package).sort()).toEqual(['level-zero', 'level-zero-devel']);
    expect(c.leftToHost!.find((a) => a.package === 'libstdcxx')!.runtime).toEqual({ install: false, why: 'satisfied by the host' });
  });
});
