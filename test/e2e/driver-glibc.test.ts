// A GPU driver that cannot load on this machine: Debian sid's real libze-intel-gpu1 (its ELFs need a newer glibc than
// Debian 12's 2.36), repacked as conda-forge's intel-compute-runtime. Refused before the swap when its record says
// nothing of it, and at plan when the record declares the __glibc it needs; with Debian's apt after it, that source's
// driver is installed in the same run, and the next run turns the package away without downloading it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureGpuDriverDebs, ensureSidDebs, type SidDebs } from '../support/debs.js';
import { buildCondaPackage, type ArchiveEntry } from '../support/packages.js';
import { serveDirectory, type StaticServer } from '../support/static-server.js';
import { REPO } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const run = promisify(execFile);
const fx = withFixtureRun('driver-glibc', { noIndex: true });
let server: StaticServer;
let sid: SidDebs;
let manifests: string;
/** The newest GLIBC_ version the sid driver needs (GLIBC_2.38 when this was written), read from its ELF. */
let needs: string;
/** This machine's glibc (`2.36` on Debian 12). */
let hostGlibc: string;
let version: string;

/** The sid driver's Level Zero library as a package's files. */
async function sidDriverFiles(): Promise<ArchiveEntry[]> {
  const real = await fs.realpath(path.join(sid.libDir, 'libze_intel_gpu.so.1'));
  return [
    { path: `lib/${path.basename(real)}`, type: 'file', data: await fs.readFile(real), mode: 0o755 },
    { path: 'lib/libze_intel_gpu.so.1', type: 'symlink', target: path.basename(real) },
  ];
}

/** A channel with the driver's record: `glibc` is the `__glibc` its depends declare; `payload` its files (the sid driver's). */
async function channel(name: string, glibc: string, files?: ArchiveEntry[], more: { version: string; glibc: string; files: ArchiveEntry[] }[] = []): Promise<string> {
  const payload = files ?? (await sidDriverFiles());
  const dir = fx.at('channels', name, 'linux-64');
  await fs.mkdir(dir, { recursive: true });
  const records: Record<string, unknown> = {};
  for (const r of [{ version, glibc, files: payload }, ...more]) {
    const spec = {
      name: 'intel-compute-runtime', version: r.version, build: 'h4bc722e_0', buildNumber: 0, subdir: 'linux-64' as const,
      depends: [`__glibc ${r.glibc}`, 'libgcc >=14', 'libstdcxx >=14'], license: 'MIT', payload: r.files,
    };
    const pkg = await buildCondaPackage(spec, 'conda');
    await fs.writeFile(path.join(dir, pkg.filename), pkg.bytes);
    records[pkg.filename] = { ...pkg.index, sha256: createHash('sha256').update(pkg.bytes).digest('hex'), md5: createHash('md5').update(pkg.bytes).digest('hex'), size: pkg.bytes.length };
  }
  await fs.writeFile(path.join(dir, 'repodata.json'), JSON.stringify({ info: { subdir: 'linux-64' }, packages: {}, 'packages.conda': records, repodata_version: 1 }));
  await fs.mkdir(fx.at('channels', name, 'noarch'), { recursive: true });
  await fs.writeFile(fx.at('channels', name, 'noarch', 'repodata.json'), JSON.stringify({ info: { subdir: 'noarch' }, packages: {}, 'packages.conda': {}, repodata_version: 1 }));
  return `${server.url}/channels/${name}`;
}

beforeAll(async () => {
  sid = await ensureSidDebs();
  version = sid.versions['libze-intel-gpu1']!.replace(/-[^-]+$/, '');
  const { stdout } = await run('readelf', ['-V', '-W', path.join(sid.libDir, 'libze_intel_gpu.so.1')]);
  needs = [...stdout.matchAll(/Name: (GLIBC_[\d.]+)/g)].map((m) => m[1]!).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1)!;
  hostGlibc = (await run('getconf', ['GNU_LIBC_VERSION'])).stdout.trim().split(' ')[1]!;
  server = await serveDirectory(fx.work);
  // The shipped gpu-driver manifest, asking only for the Level Zero driver (the package here has nothing else).
  manifests = fx.at('manifests');
  await fs.mkdir(manifests, { recursive: true });
  for (const m of ['level-zero.json', 'unified-runtime.json', 'gpu-driver.json']) await fs.copyFile(path.join(REPO, 'manifests', m), path.join(manifests, m));
  const driver = JSON.parse(await fs.readFile(path.join(manifests, 'gpu-driver.json'), 'utf8'));
  driver.platforms['linux-x64'].provides = [{ path: 'lib/libze_intel_gpu.so.1', required: true }];
  await fs.writeFile(path.join(manifests, 'gpu-driver.json'), JSON.stringify(driver));
});

afterAll(async () => {
  await server?.close();
});

const setup = (name: string, url: string, more: string[] = ['--source', 'conda'], cache = name) =>
  fx.run(['--manifests', manifests, '--component', 'gpu-driver', '--conda-channel', url, '--prefix', fx.at(name, 'p'), '--cache-dir', fx.at(cache, 'cache'), '--no-probe', '--no-smoke', ...more]);
const receiptOf = async (name: string) => JSON.parse(await fs.readFile(fx.at(name, 'p', 'xpu-setup.receipt.json'), 'utf8')) as { components: { name: string; version: string; source: string }[] };

describe('Debian sid\'s libze-intel-gpu1 on Debian 12', () => {
  it('is a driver this machine cannot load: it needs a newer glibc than the host has', () => {
    expect(Number(needs.split('.')[1])).toBeGreaterThan(Number(hostGlibc.split('.')[1]));
  });

  it('a record that declares nothing of it: refused before the swap, naming the need and the host\'s glibc; the prefix untouched', async () => {
    const url = await channel('undeclared', '>=2.17,<3.0.a0');
    const r = await setup('undeclared', url);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('✗ refused before the swap; the prefix was left as it was');
    expect(r.stderr).toMatch(new RegExp(`lib/libze_intel_gpu\\.so\\.1\\S* needs ${needs.replace(/\./g, '\\.')}, this host has ${hostGlibc.replace(/\./g, '\\.')} \\(/`));
    expect(await fs.lstat(fx.at('undeclared', 'p')).then(() => true, () => false)).toBe(false);
  });

  it('a record that declares __glibc >=2.38: refused at plan, before any download', async () => {
    const url = await channel('declared', `>=${needs.replace(/^GLIBC_/, '')},<3.0.a0`);
    const from = server.requests.length;
    const r = await setup('declared', url);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`error: cannot satisfy intel-compute-runtime ${version}: __glibc >=${needs.replace(/^GLIBC_/, '')},<3.0.a0: only __glibc ${hostGlibc} can be had`);
    expect(server.requests.slice(from).filter((q) => q.endsWith('.conda'))).toEqual([]);
    expect(await fs.lstat(fx.at('declared', 'p')).then(() => true, () => false)).toBe(false);
  });
});

describe('a conda record whose __glibc this host does not meet, beside an older one that it does', () => {
  it('plans the older one before any download, and says in one line why the newer was left', async () => {
    // The older record carries Debian 12's real 22.43 driver (it needs GLIBC_2.34).
    const old = [{ path: 'lib/libze_intel_gpu.so.1', type: 'file' as const, data: await fs.readFile(path.join(await ensureGpuDriverDebs().then((d) => d.root), 'usr/lib/x86_64-linux-gnu/libze_intel_gpu.so.1')), mode: 0o755 }];
    const url = await channel('two-glibcs', `>=${needs.replace(/^GLIBC_/, '')},<3.0.a0`, undefined, [{ version: '22.43.24595.41', glibc: '>=2.17,<3.0.a0', files: old }]);
    const from = server.requests.length;
    const r = await fx.run(['plan', '--json', '--manifests', manifests, '--component', 'gpu-driver', '--source', 'conda', '--conda-channel', url, '--prefix', fx.at('two-glibcs', 'p'), '--cache-dir', fx.at('two-glibcs', 'cache')]);
    expect(r.exitCode, r.stderr).toBe(0);
    const driver = JSON.parse(r.stdout).components.find((c: { name: string }) => c.name === 'gpu-driver');
    expect(driver.version).toBe('22.43.24595.41');
    expect(driver.choice?.line).toBe(`gpu-driver 22.43.24595.41 from conda (${version} needs glibc ${needs.replace(/^GLIBC_/, '')}; this host has glibc ${hostGlibc})`);
    expect(server.requests.slice(from).filter((q) => q.endsWith('.conda'))).toEqual([]);
  });
});

describe('a conda candidate that the download shows does not serve here, ahead of Debian\'s apt', () => {
  it('a driver whose libraries need a newer glibc: turned away after the download, and apt\'s 22.43 installed in the same run', async () => {
    const url = await channel('undeclared-then-apt', '>=2.17,<3.0.a0');
    const r = await setup('then-apt', url, []);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: gpu-driver: conda intel-compute-runtime ${version}: lib/libze_intel_gpu.so.1 needs ${needs}, this host has ${hostGlibc} (`);
    expect(r.stderr).toMatch(/: planning again without it\n/);
    const receipt = await receiptOf('then-apt');
    expect(receipt.components.map((c) => `${c.name} ${c.source.split(' ')[0]}`)).toEqual(['gpu-driver apt']);
    expect(receipt.components[0]!.version).toMatch(/^22\.43\./);
  });

  it('remembered: the next run in the same cache plans apt\'s at once and downloads nothing from the channel', async () => {
    const url = `${server.url}/channels/undeclared-then-apt`;
    const from = server.requests.length;
    const r = await fx.run(['plan', '--json', '--manifests', manifests, '--component', 'gpu-driver', '--conda-channel', url, '--prefix', fx.at('then-apt-2', 'p'), '--cache-dir', fx.at('then-apt', 'cache')]);
    expect(r.exitCode, r.stderr).toBe(0);
    const driver = JSON.parse(r.stdout).components.find((c: { name: string }) => c.name === 'gpu-driver');
    expect(driver.source).toBe('apt');
    expect(driver.choice.line).toMatch(new RegExp(`learned from an earlier download`));
    expect(server.requests.slice(from).filter((q) => q.endsWith('.conda'))).toEqual([]);
  });

  it('a package without the component\'s Level Zero driver (OpenCL only): turned away after the download, apt\'s installed', async () => {
    const icd: ArchiveEntry[] = [{ path: 'lib/intel-opencl/libigdrcl.so', type: 'file', data: Buffer.from('not the Level Zero driver'), mode: 0o755 }];
    const url = await channel('opencl-only', '>=2.17,<3.0.a0', icd);
    const r = await setup('opencl-only', url, []);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`gpu-driver: conda intel-compute-runtime ${version}: installs none of the component's files (lib/libze_intel_gpu.so.1): planning again without it`);
    expect(r.stderr).toContain('(learned from an earlier download); it has no other that fits');
    expect((await receiptOf('opencl-only')).components.map((c) => `${c.name} ${c.source.split(' ')[0]}`)).toEqual(['gpu-driver apt']);
  });
});
