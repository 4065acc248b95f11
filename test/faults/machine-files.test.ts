// Fault matrix, files the machine names: FIFOs, devices and huge files among the OpenCL vendors' .icd files and the
// sysfs attributes read to find GPUs, mounted over the real ones in a private mount namespace; the CLI as a process.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO, runCli, scrubbedEnv } from '../e2e/cli.js';
import { compareSnapshots, FaultTable, makeSentinel, snapshotTree } from './matrix.js';
import { withFixtureRun } from '../support/fixture-run.js';

const table = new FaultTable('fault matrix: files the machine names (CLI as a process, private mount namespace)');
const fx = withFixtureRun('machine-files');
const VENDORS = '/etc/OpenCL/vendors';
const PCI = '/sys/bus/pci/devices';

/** Bind mounts need root, and the directories mounted over must exist. */
const canMount = process.getuid?.() === 0 && execFileSync('sh', ['-c', `test -d ${VENDORS} && test -d ${PCI} && command -v unshare >/dev/null && echo y || true`]).toString().trim() === 'y';

afterAll(async () => {
  table.print();
});

/** An OpenCL vendors directory holding a FIFO, a link to /dev/zero, a sparse 512 MiB file, links to `..` and `.`, and one good .icd. */
async function hostileVendors(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  execFileSync('mkfifo', [path.join(dir, 'a-fifo.icd')]);
  await fs.symlink('/dev/zero', path.join(dir, 'b-zero.icd'));
  await fs.writeFile(path.join(dir, 'c-huge.icd'), '');
  await fs.truncate(path.join(dir, 'c-huge.icd'), 512 * 1024 * 1024);
  await fs.writeFile(path.join(dir, 'good.icd'), '/usr/lib/x86_64-linux-gnu/pocl/libpocl.so.2\n');
  // Links that lead to directories: the vendors directory's parent, and the vendors directory itself.
  await fs.symlink('..', path.join(dir, 'd-up.icd'));
  await fs.symlink('.', path.join(dir, 'e-self.icd'));
}

/** PCI devices whose attributes are a FIFO, a link to /dev/urandom and a sparse 64 MiB file, beside one Intel GPU. */
async function hostileSysfs(dir: string): Promise<void> {
  const dev = async (addr: string, attrs: Record<string, string>) => {
    await fs.mkdir(path.join(dir, addr), { recursive: true });
    for (const [k, v] of Object.entries(attrs)) await fs.writeFile(path.join(dir, addr, k), v);
    return path.join(dir, addr);
  };
  const fifo = await dev('0000:00:01.0', { device: '0x56a0\n', class: '0x030000\n' });
  execFileSync('mkfifo', [path.join(fifo, 'vendor')]);
  const rand = await dev('0000:00:02.0', { vendor: '0x8086\n', device: '0x56a0\n' });
  await fs.symlink('/dev/urandom', path.join(rand, 'class'));
  const huge = await dev('0000:00:03.0', { vendor: '0x8086\n', class: '0x030000\n', device: '' });
  await fs.truncate(path.join(huge, 'device'), 64 * 1024 * 1024);
  await dev('0000:03:00.0', { vendor: '0x8086\n', device: '0x56a0\n', class: '0x030000\n' });
}

describe('fault matrix: files the machine names', () => {
  it.skipIf(!canMount)('setup with a FIFO, /dev/zero and 512 MiB among the .icd files, and such sysfs attributes: installs, reads none of them', async () => {
    const dir = await fs.mkdtemp(fx.at('case-'));
    const parent = path.join(dir, 'p');
    const prefix = path.join(parent, 'prefix');
    await makeSentinel(path.join(parent, 'sentinel'));
    await hostileVendors(path.join(dir, 'vendors'));
    await hostileSysfs(path.join(dir, 'pci'));
    const before = await snapshotTree(parent);
    const rss = path.join(dir, 'rss');
    const env = scrubbedEnv(path.join(dir, 'home'), { XPU_SETUP_INDEX_URL: fx.index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
    const args = ['setup', '--prefix', prefix, '--cache-dir', path.join(dir, 'cache'), '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-smoke', '--json'];
    const script = `mount --bind "$1" ${VENDORS} && mount --bind "$2" ${PCI} && shift 2 && exec /usr/bin/time -f %M -o "$0" "$@"`;
    const t0 = Date.now();
    const r = await execa('unshare', ['-m', 'sh', '-c', script, rss, path.join(dir, 'vendors'), path.join(dir, 'pci'), process.execPath, BIN, ...args], { env, extendEnv: false, reject: false, cwd: REPO, timeout: 60_000 });
    const ms = Date.now() - t0;
    const peakMb = Math.round(Number((await fs.readFile(rss, 'utf8').catch(() => '0')).trim().split('\n').pop()) / 1024);
    const after = await snapshotTree(parent);
    for (const snap of [before, after]) for (const k of [...snap.keys()]) if (k === 'prefix' || k.startsWith('prefix/')) snap.delete(k);
    for (const k of [...after.keys()]) if (k.endsWith('.xpu-setup.lock')) after.delete(k);
    const outside = compareSnapshots(before, after);
    const doc = JSON.parse(String(r.stdout) || '{}') as { ok?: boolean; error?: { code?: string } };
    table.add({ case: '.icd FIFO, /dev/zero, 512 MiB, ->.., ->.; sysfs FIFO, /dev/urandom, 64 MiB', exit: r.exitCode ?? -1, code: doc.ok ? '-' : (doc.error?.code ?? (r.timedOut ? 'TIMED OUT' : '?')), ms, outside: `${outside}, peak ${peakMb} MiB` });
    expect([r.exitCode, doc.ok], String(r.stderr)).toEqual([0, true]);
    expect(ms).toBeLessThan(30_000);
    expect(peakMb).toBeLessThan(400);
    expect(outside).toBe('unchanged');
  });
});

describe('fault matrix: the prefix\'s own .icd file', () => {
  it('doctor names an intel.icd that names a library outside the prefix beside the prefix\'s own', async () => {
    const dir = await fs.mkdtemp(fx.at('icd-'));
    const prefix = path.join(dir, 'prefix');
    const env = scrubbedEnv(path.join(dir, 'home'), { XPU_SETUP_INDEX_URL: fx.index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
    const base = await runCli(['--prefix', prefix, '--cache-dir', path.join(dir, 'cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--component', 'level-zero', '--no-probe'], env);
    expect(base.exitCode, base.stderr).toBe(0);
    const vendors = path.join(prefix, 'etc/OpenCL/vendors');
    await fs.mkdir(vendors, { recursive: true });
    await fs.writeFile(path.join(vendors, 'intel.icd'), `${path.join(prefix, 'lib/intel-opencl/libigdrcl.so')}\n/srv/elsewhere/libgrab.so\n`);
    const t0 = Date.now();
    const r = await runCli(['doctor', '--prefix', prefix, '--json'], env);
    const check = (JSON.parse(r.stdout) as { checks: { id: string; status: string; message: string }[] }).checks.find((c) => c.id === 'prefix')!;
    table.add({ case: 'doctor: intel.icd names /srv/elsewhere/libgrab.so too', exit: r.exitCode, code: check.status, ms: Date.now() - t0, outside: 'unchanged' });
    expect(check.status).toBe('fail');
    expect(check.message).toMatch(/intel\.icd: it names "\/srv\/elsewhere\/libgrab\.so", not only the prefix's/);
  });
});
