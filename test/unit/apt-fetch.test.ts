// The apt kind's download through this machine's real apt: a private apt configuration whose one source is a flat
// file: repository of Debian 12's own libigdgmm12 (a `+` in its file name) and libopencl-clang14, each listed with its
// real control stanza as dpkg-scanpackages writes it. Planned archives come through apt-helper from where apt's index
// puts them; archives this process did not plan (a lockfile's) through apt-get download, as before.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps, Exec } from '../../src/base/deps.js';
import { DownloadCache } from '../../src/cache/store.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { openGateway } from '../../src/index/gateway.js';
import { apt, fetchAptMany } from '../../src/kinds/apt.js';
import type { SourceContext } from '../../src/kinds/kind.js';
import { silentReporter } from '../../src/base/reporter.js';
import type { Host } from '../../src/platform/types.js';
import { ensureGpuDriverDebs } from '../support/debs.js';
import { failure } from '../support/failure.js';
import { aptRepository, packagesStanza } from '../faults/hostile.js';

const run = promisify(execFile);
const debian: Host = {
  platform: 'linux-x64', os: 'linux', arch: 'x64', native: true, glibc: '2.36',
  distro: { id: 'debian', versionId: '12', idLike: [], prettyName: 'Debian GNU/Linux 12 (bookworm)' },
};
const FILES = { libigdgmm12: 'libigdgmm12_22.3.3+ds1-1_amd64.deb', 'libopencl-clang14': 'libopencl-clang14_14.0.0-4_amd64.deb' };
const HELPER = '/usr/lib/apt/apt-helper';

let work: string;
let repoDir: string;
let conf: string;
const debs = new Map<string, Buffer>();

/** The Packages stanza of a real package: its own control fields, as `dpkg-deb -f` prints them. */
async function stanza(file: string, bytes: Buffer): Promise<string> {
  return packagesStanza((await run('dpkg-deb', ['-f', file])).stdout, path.basename(file), bytes);
}

beforeAll(async () => {
  const gpu = await ensureGpuDriverDebs();
  const dir = path.dirname(gpu.root);
  work = await fs.mkdtemp(path.join(process.env.TMPDIR ?? '/tmp', 'xpu-apt-fetch-'));
  let packages = '';
  for (const [pkg, file] of Object.entries(FILES)) {
    const bytes = await fs.readFile(path.join(dir, file));
    debs.set(pkg, bytes);
    packages += await stanza(path.join(dir, file), bytes);
  }
  repoDir = path.join(work, 'apt', 'repo');
  conf = await aptRepository(path.join(work, 'apt'), packages, Object.fromEntries(Object.entries(FILES).map(([pkg, file]) => [file, debs.get(pkg)!])));
}, 300_000);

afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

/** This machine's programs, each started with the private apt configuration, and every start recorded. */
function seam(): { deps: Deps; started: string[][] } {
  const real = realDeps();
  const started: string[][] = [];
  const exec: Exec = (file, args, opts) => {
    started.push([file, ...args]);
    return real.exec(file, args, { ...opts, env: { ...(opts?.env ?? process.env), APT_CONFIG: conf } });
  };
  return { deps: { ...real, env: { ...process.env, APT_CONFIG: conf }, exec }, started };
}

async function plan(deps: Deps) {
  const ctx: SourceContext = { host: debian, deps, reporter: silentReporter, gateway: openGateway(deps), indexes: {} };
  return (await apt.resolve({ kind: 'apt', packages: Object.keys(FILES), map: [] }, ctx)).archives;
}

let n = 0;
const newCache = () => new DownloadCache(path.join(work, `cache-${n++}`));

describe("apt's download through the machine's apt", () => {
  it('takes what the plan placed through apt-helper, from the repository apt names for the version, and never starts apt-get download', async () => {
    const { deps, started } = seam();
    const archives = await plan(deps);
    const cache = newCache();
    const got = await fetchAptMany(archives, cache, deps);
    for (const a of archives) expect(await fs.readFile(got.get(a.sha256)!.path)).toEqual(debs.get(a.package));
    const helper = started.filter((s) => s[0] === HELPER);
    expect(helper).toHaveLength(1);
    const uris = helper[0]!.slice(helper[0]!.indexOf('download-file') + 1).filter((_, i) => i % 3 === 0);
    // apt's own quoting of the file name: `+` is %2B.
    expect(uris).toEqual([`file:${repoDir}/./libigdgmm12_22.3.3%2Bds1-1_amd64.deb`, `file:${repoDir}/./libopencl-clang14_14.0.0-4_amd64.deb`]);
    expect(helper[0]).toEqual(expect.arrayContaining([`SHA256:${archives[0]!.sha256}`, 'Acquire::Source-Symlinks=false']));
    expect(started.filter((s) => s[0] === 'apt-get').map((s) => s.slice(1).find((a) => !a.startsWith('-') && !a.includes('::')))).toEqual(['indextargets']);
    // Copied into the cache, not linked to the repository.
    for (const a of archives) expect((await fs.lstat(got.get(a.sha256)!.path)).isFile()).toBe(true);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });

  it("takes archives this process did not plan (a lockfile's) through apt-get download", async () => {
    const archives = await plan(seam().deps);
    const { deps, started } = seam();
    const got = await fetchAptMany(archives, newCache(), deps);
    for (const a of archives) expect(await fs.readFile(got.get(a.sha256)!.path)).toEqual(debs.get(a.package));
    expect(started.map((s) => s[0])).toEqual(['apt-config', 'apt-config', 'apt-get']);
    expect(started[2]).toEqual(expect.arrayContaining(['download', 'libigdgmm12=22.3.3+ds1-1', 'libopencl-clang14=14.0.0-4']));
  });

  it('a file the repository changed after apt read its lists: apt-helper refuses it, apt-get download is tried, its refusal is named and nothing is kept', async () => {
    const { deps, started } = seam();
    const archives = await plan(deps);
    const file = path.join(repoDir, FILES.libigdgmm12);
    await fs.writeFile(file, Buffer.concat([debs.get('libigdgmm12')!, Buffer.from('appended')]));
    try {
      const cache = newCache();
      const e = await failure(fetchAptMany(archives, cache, deps));
      expect([e.code, e.message]).toEqual(['NETWORK', 'apt-get download libigdgmm12=22.3.3+ds1-1 failed (one call for 2 packages)']);
      expect(String((e.details as { stderr: string }).stderr)).toMatch(/Hash Sum mismatch|Size mismatch/);
      expect(started.map((s) => s[0]).filter((p) => p === HELPER || p === 'apt-get')).toEqual(['apt-get', HELPER, 'apt-get']);
      for (const a of archives) expect(await cache.lookup(a.sha256)).toBeUndefined();
      expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
    } finally {
      await fs.writeFile(file, debs.get('libigdgmm12')!);
    }
  });
});
