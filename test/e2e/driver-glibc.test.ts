// A GPU driver that cannot load on this machine: Debian sid's real libze-intel-gpu1 (its ELFs need a newer glibc than
// Debian 12's 2.36), repacked as conda-forge's intel-compute-runtime. Refused before the swap when its record says
// nothing of it, and at plan when the record declares the __glibc it needs.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSidDebs, type SidDebs } from '../support/debs.js';
import { buildCondaPackage, type ArchiveEntry } from '../support/packages.js';
import { serveDirectory, type StaticServer } from '../support/static-server.js';
import { REPO, runCli, scrubbedEnv, tempDir } from './cli.js';

const run = promisify(execFile);
let work: string;
let server: StaticServer;
let sid: SidDebs;
let manifests: string;
/** The newest GLIBC_ version the sid driver needs (GLIBC_2.38 when this was written), read from its ELF. */
let needs: string;
/** This machine's glibc (`2.36` on Debian 12). */
let hostGlibc: string;
let version: string;

/** A channel with the driver's record: `glibc` is the `__glibc` its depends declare. */
async function channel(name: string, glibc: string): Promise<string> {
  const lib = path.join(sid.libDir, 'libze_intel_gpu.so.1');
  const real = await fs.realpath(lib);
  const payload: ArchiveEntry[] = [
    { path: `lib/${path.basename(real)}`, type: 'file', data: await fs.readFile(real), mode: 0o755 },
    { path: 'lib/libze_intel_gpu.so.1', type: 'symlink', target: path.basename(real) },
  ];
  const spec = {
    name: 'intel-compute-runtime', version, build: 'h4bc722e_0', buildNumber: 0, subdir: 'linux-64' as const,
    depends: [`__glibc ${glibc}`, 'libgcc >=14', 'libstdcxx >=14'], license: 'MIT', payload,
  };
  const pkg = await buildCondaPackage(spec, 'conda');
  const dir = path.join(work, 'channels', name, 'linux-64');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, pkg.filename), pkg.bytes);
  const record = { ...pkg.index, sha256: createHash('sha256').update(pkg.bytes).digest('hex'), md5: createHash('md5').update(pkg.bytes).digest('hex'), size: pkg.bytes.length };
  await fs.writeFile(path.join(dir, 'repodata.json'), JSON.stringify({ info: { subdir: 'linux-64' }, packages: {}, 'packages.conda': { [pkg.filename]: record }, repodata_version: 1 }));
  await fs.mkdir(path.join(work, 'channels', name, 'noarch'), { recursive: true });
  await fs.writeFile(path.join(work, 'channels', name, 'noarch', 'repodata.json'), JSON.stringify({ info: { subdir: 'noarch' }, packages: {}, 'packages.conda': {}, repodata_version: 1 }));
  return `${server.url}/channels/${name}`;
}

beforeAll(async () => {
  work = await tempDir('driver-glibc');
  sid = await ensureSidDebs();
  version = sid.versions['libze-intel-gpu1']!.replace(/-[^-]+$/, '');
  const { stdout } = await run('readelf', ['-V', '-W', path.join(sid.libDir, 'libze_intel_gpu.so.1')]);
  needs = [...stdout.matchAll(/Name: (GLIBC_[\d.]+)/g)].map((m) => m[1]!).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1)!;
  hostGlibc = (await run('getconf', ['GNU_LIBC_VERSION'])).stdout.trim().split(' ')[1]!;
  server = await serveDirectory(work);
  // The shipped gpu-driver manifest, asking only for the Level Zero driver (the package here has nothing else).
  manifests = path.join(work, 'manifests');
  await fs.mkdir(manifests, { recursive: true });
  for (const m of ['level-zero.json', 'unified-runtime.json', 'gpu-driver.json']) await fs.copyFile(path.join(REPO, 'manifests', m), path.join(manifests, m));
  const driver = JSON.parse(await fs.readFile(path.join(manifests, 'gpu-driver.json'), 'utf8'));
  driver.platforms['linux-x64'].provides = [{ path: 'lib/libze_intel_gpu.so.1', required: true }];
  await fs.writeFile(path.join(manifests, 'gpu-driver.json'), JSON.stringify(driver));
});

afterAll(async () => {
  await server?.close();
  await fs.rm(work, { recursive: true, force: true });
});

const setup = (name: string, url: string, more: string[] = []) =>
  runCli(['--manifests', manifests, '--component', 'gpu-driver', '--source', 'conda', '--conda-channel', url, '--prefix', path.join(work, name, 'p'), '--cache-dir', path.join(work, name, 'cache'), '--no-probe', '--no-smoke', ...more], scrubbedEnv(path.join(work, 'home')));

describe('Debian sid\'s libze-intel-gpu1 on Debian 12', () => {
  it('is a driver this machine cannot load: it needs a newer glibc than the host has', () => {
    expect(Number(needs.split('.')[1])).toBeGreaterThan(Number(hostGlibc.split('.')[1]));
  });

  it('a record that declares nothing of it: refused before the swap, naming the need and the host\'s glibc; the prefix untouched', async () => {
    const url = await channel('undeclared', '>=2.17,<3.0.a0');
    const r = await setup('undeclared', url);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('✗ install failed; the prefix was left as it was');
    expect(r.stderr).toMatch(new RegExp(`lib/libze_intel_gpu\\.so\\.1\\S* needs ${needs.replace(/\./g, '\\.')}, this host has ${hostGlibc.replace(/\./g, '\\.')} \\(/`));
    expect(await fs.lstat(path.join(work, 'undeclared', 'p')).then(() => true, () => false)).toBe(false);
  });

  it('a record that declares __glibc >=2.38: refused at plan, before any download', async () => {
    const url = await channel('declared', `>=${needs.replace(/^GLIBC_/, '')},<3.0.a0`);
    const from = server.requests.length;
    const r = await setup('declared', url);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`error: cannot satisfy intel-compute-runtime ${version}: __glibc >=${needs.replace(/^GLIBC_/, '')},<3.0.a0: only __glibc ${hostGlibc} can be had`);
    expect(server.requests.slice(from).filter((q) => q.endsWith('.conda'))).toEqual([]);
    expect(await fs.lstat(path.join(work, 'declared', 'p')).then(() => true, () => false)).toBe(false);
  });
});
