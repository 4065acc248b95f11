// A prefix for Arm Linux machines, planned and installed from this x64 one (`--platform linux-aarch64`, nothing run):
// from a conda-forge-shaped linux-aarch64 channel of real AArch64 files, and refused when a package holds x86-64 ones.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elfMachine } from '../../src/formats/elf.js';
import { buildAarch64Channel, type Aarch64Channel } from '../support/aarch64-channel.js';
import { serveDirectory, type StaticServer } from '../support/static-server.js';
import { listTree, runCli, scrubbedEnv, tempDir } from './cli.js';

const EM_AARCH64 = 183;
/** A port nothing listens on: every proxy refused, as with networking off. */
const DEAD = 'http://127.0.0.1:9';

let channel: Aarch64Channel;
let server: StaticServer;
let work: string;
let env: Record<string, string>;
const url = (name: string) => `${server.url}/${name}`;
const machineOf = async (file: string) => elfMachine(await fs.readFile(file));

beforeAll(async () => {
  channel = await buildAarch64Channel();
  server = await serveDirectory(channel.dir);
  work = await tempDir('aarch64');
  env = scrubbedEnv(path.join(work, 'home'));
});

afterAll(async () => {
  await server?.close();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

describe('--platform linux-aarch64 from a linux-aarch64 conda channel', () => {
  it('plans Level Zero from the linux-aarch64 subdir, the runtime packages coming along, and nothing of linux-64', async () => {
    server.requests.length = 0;
    const r = await runCli(['plan', '--platform', 'linux-aarch64', '--conda-channel', url(channel.channels.arm), '--json'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.platform).toBe('linux-aarch64');
    expect(plan.host).toMatchObject({ native: false });
    type Planned = { name: string; status: string; notes: string[]; archives: { filename: string; url: string }[] };
    const [l0, ur] = ['level-zero', 'unified-runtime'].map((n) => (plan.components as Planned[]).find((c) => c.name === n)!);
    // The Unified Runtime has no AArch64 build on PyPI or conda: said, not guessed from an x86-64 one.
    expect(ur).toMatchObject({ status: 'unavailable', archives: [], notes: ['unified-runtime has no source for linux-aarch64'] });
    const archives = l0!.archives;
    expect(archives.map((a) => a.filename).sort()).toEqual([
      `level-zero-${channel.levelZero}-h5ad3122_0.conda`,
      `level-zero-devel-${channel.levelZero}-h5ad3122_0.conda`,
      `libgcc-${channel.gcc}-he277a41_2.conda`,
      `libstdcxx-${channel.gcc}-h3f4de04_2.conda`,
    ]);
    for (const a of archives) expect(a.url).toContain('/arm/linux-aarch64/');
    expect(server.requests.filter((p) => p.includes('/linux-64/'))).toEqual([]);
  });

  it('never lets this machine\'s libgcc and libstdc++ stand in for an Arm machine\'s: a channel without them is no source', async () => {
    const r = await runCli(['plan', '--platform', 'linux-aarch64', '--conda-channel', url(channel.channels.noRuntime), '--component', 'level-zero'], env);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/libgcc/);
    expect(r.stderr).not.toMatch(/stands in|this machine's own/);
  });

  it('installs AArch64 libraries, runs nothing, and writes the env files', async () => {
    const prefix = path.join(work, 'arm', 'prefix');
    const r = await runCli(['--platform', 'linux-aarch64', '--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', url(channel.channels.arm)], env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('installed for linux-aarch64: nothing is run on this machine');
    const tree = await listTree(prefix);
    for (const f of ['include/level_zero/ze_api.h', 'lib/libze_loader.so.1', 'lib/libze_loader.so', 'lib/libstdc++.so.6', 'lib/libgcc_s.so.1', 'env.sh', 'xpu-setup.receipt.json']) {
      expect(tree, f).toContain(f);
    }
    for (const lib of ['libze_loader.so.1', 'libstdc++.so.6', 'libgcc_s.so.1']) expect(await machineOf(path.join(prefix, 'lib', lib)), lib).toBe(EM_AARCH64);
    // Nothing was built or run for a machine this is not.
    expect(tree.some((f) => f.startsWith('lib/xpu-setup/'))).toBe(false);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.platform ?? receipt.plan?.platform).toBe('linux-aarch64');
    // doctor here does not judge an Arm machine's libraries by this one's glibc and libstdc++; it checks their CPU.
    const libraries = async () => {
      const d = await runCli(['doctor', '--json', '--prefix', prefix, '--check', 'libraries'], env);
      return JSON.parse(d.stdout).checks.find((c: { id: string }) => c.id === 'libraries') as { status: string; message: string };
    };
    expect(await libraries()).toMatchObject({ status: 'skip', message: 'a prefix for linux-aarch64: its libraries are built for AArch64; what they need is found on such a machine (run doctor there)' });
    const loader = path.join(prefix, 'lib', `libze_loader.so.${channel.levelZero}`);
    const arm = await fs.readFile(loader);
    await fs.copyFile('/lib/x86_64-linux-gnu/libc.so.6', loader);
    expect(await libraries()).toMatchObject({ status: 'fail', message: `lib/libze_loader.so.${channel.levelZero} is built for x86-64 (ELF e_machine 62), not for AArch64 (ELF e_machine 183): the package is for another CPU` });
    await fs.writeFile(loader, arm);
  });

  it('refuses a linux-aarch64 package whose loader is an x86-64 file, naming it, and leaves no prefix', async () => {
    const prefix = path.join(work, 'mislabelled', 'prefix');
    const r = await runCli(['--platform', 'linux-aarch64', '--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', url(channel.channels.mislabelled)], env);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain(`lib/libze_loader.so.${channel.levelZero} is built for x86-64 (ELF e_machine 62), not for AArch64 (ELF e_machine 183): the package is for another CPU`);
    expect(await fs.stat(prefix).then(() => true, () => false)).toBe(false);
  });

  it('locks and bundles linux-aarch64, and installs from the bundle with networking off', async () => {
    const lockfile = path.join(work, 'lock', 'xpu-setup.lock.json');
    await fs.mkdir(path.dirname(lockfile), { recursive: true });
    const l = await runCli(['lock', '--platform', 'linux-aarch64', '--lockfile', lockfile, '--conda-channel', url(channel.channels.arm)], env);
    expect(l.exitCode, l.stderr).toBe(0);
    const lock = JSON.parse(await fs.readFile(lockfile, 'utf8'));
    expect(Object.keys(lock.platforms)).toEqual(['linux-aarch64']);
    const bundle = path.join(work, 'bundle');
    const b = await runCli(['bundle', '--platform', 'linux-aarch64', '--out', bundle, '--conda-channel', url(channel.channels.arm), '--cache-dir', path.join(work, 'bundle-cache')], env);
    expect(b.exitCode, b.stderr).toBe(0);
    const tree = await listTree(bundle);
    expect(tree).toContain('linux-aarch64/repodata.json');
    expect(tree.some((f) => f.startsWith('linux-64/'))).toBe(false);
    const prefix = path.join(work, 'from-bundle');
    const offline = { ...env, HTTP_PROXY: DEAD, HTTPS_PROXY: DEAD };
    const f = await runCli(['--from', bundle, '--platform', 'linux-aarch64', '--prefix', prefix, '--cache-dir', path.join(work, 'from-bundle-cache')], offline);
    expect(f.exitCode, f.stderr).toBe(0);
    expect(await machineOf(path.join(prefix, 'lib', 'libze_loader.so.1'))).toBe(EM_AARCH64);
  });
});
