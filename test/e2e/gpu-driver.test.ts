// The GPU user-mode driver from the distribution: Debian 12's real compute-runtime 22.43 packages, planned from their
// own Depends, installed into a prefix and found through its env file alone by ocloc, the real Level Zero loader and
// the real OpenCL ICD loader (no GPU here: the driver loads and finds no device); and setup's proof, probe and smoke
// giving that same answer from a shell that never loaded the env file.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './cli.js';
import { buildZeInit, withFixtureRun } from '../support/fixture-run.js';

const run = promisify(execFile);
const fx = withFixtureRun('gpu-driver', { noIndex: true });
let prefix: string;
let setup: { exitCode: number; stdout: string; stderr: string };

const withEnvFile = (script: string) => fx.inEnvFile(prefix, script);

/** The packages dpkg says this machine has installed. */
async function installedPackages(): Promise<Set<string>> {
  const { stdout } = await run('dpkg-query', ['-W', '-f', '${Package} ${db:Status-Abbrev}\n']);
  return new Set(stdout.split('\n').filter((l) => /\sii\s*$/.test(l)).map((l) => l.split(' ')[0]!));
}

beforeAll(async () => {
  prefix = fx.at('p');
  setup = await fx.run(['--component', 'gpu-driver', '--source', 'apt', '--prefix', prefix, '--cache-dir', fx.at('cache'), '--no-probe', '--no-smoke', '--json']);
}, 600_000);

describe('gpu-driver from apt on Debian 12', () => {
  it('plans intel-opencl-icd and what its Depends name that this machine lacks, and nothing it has', async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.components).toEqual([expect.objectContaining({ name: 'gpu-driver', version: '22.43.24595.41', source: expect.stringMatching(/^apt Debian/) })]);
    const packages: string[] = receipt.archives.map((a: { package: string }) => a.package);
    expect(packages[0]).toBe('intel-opencl-icd');
    // IGC, its front end and gmmlib are what the driver needs beyond this machine's own packages.
    expect(packages).toEqual(expect.arrayContaining(['libigc1', 'libigdfcl1', 'libigdgmm12', 'libopencl-clang14']));
    const installed = await installedPackages();
    expect(packages.filter((p) => installed.has(p))).toEqual([]);
    for (const own of ['libc6', 'libstdc++6', 'libgcc-s1', 'ocl-icd-libopencl1', 'libllvm14']) expect(packages).not.toContain(own);
  });

  it('--source apt is what was asked: no fallback is claimed, and the package list Debian 12 lacks is named as such', async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(setup.stderr).not.toMatch(/falling back|fallback source/);
    const c = JSON.parse(setup.stdout).plan.components.find((x: { name: string }) => x.name === 'gpu-driver');
    expect(c.fallbackFrom).toBeUndefined();
    expect(c.attempts.map((a: { reason: string }) => a.reason)).toEqual([
      expect.stringMatching(/^apt: this machine's apt lists no package libze-intel-gpu1: not in this release, or its package lists are older than the package \(apt-get update\)$/),
      expect.stringMatching(/^apt: intel-opencl-icd 22\.43\.24595\.41/),
    ]);
  });

  it('lays the driver, the ICD, IGC, gmmlib and ocloc into the prefix, the .icd naming the prefix and the machine ICDs beside it', async () => {
    for (const f of ['lib/libze_intel_gpu.so.1', 'lib/intel-opencl/libigdrcl.so', 'lib/libigc.so.1', 'lib/libigdfcl.so.1', 'lib/libigdgmm.so.12', 'lib/libocloc.so', 'bin/ocloc']) {
      await expect(fs.stat(path.join(prefix, f)), f).resolves.toBeTruthy();
    }
    const vendors = path.join(prefix, 'etc/OpenCL/vendors');
    expect(await fs.readFile(path.join(vendors, 'intel.icd'), 'utf8')).toBe(`${prefix}/lib/intel-opencl/libigdrcl.so\n`);
    const system = (await fs.readdir('/etc/OpenCL/vendors')).filter((n) => n.endsWith('.icd') && n !== 'intel.icd');
    expect(system.length).toBeGreaterThan(0);
    for (const n of system) expect(await fs.readFile(path.join(vendors, n), 'utf8')).toBe(await fs.readFile(path.join('/etc/OpenCL/vendors', n), 'utf8'));
    const sh = await fs.readFile(path.join(prefix, 'env.sh'), 'utf8');
    expect(sh).toMatch(/OCL_ICD_VENDORS/);
  });

  it('after . env.sh alone, ocloc compiles an OpenCL kernel for dg2 into a zebin (no GPU needed)', async () => {
    await fs.writeFile(fx.at('add.cl'), 'kernel void add(global const float *a, global const float *b, global float *c) { size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n');
    // 22.x writes the older patch-token binary unless zebin is allowed.
    const r = await withEnvFile('command -v ocloc && ocloc compile -file add.cl -device dg2 -output add -internal_options -cl-intel-allow-zebin');
    expect(r.stdout.split('\n')[0]).toBe(`${prefix}/bin/ocloc`);
    expect(r.stdout).toMatch(/Build succeeded/);
    const bin = (await fs.readdir(fx.work)).find((n) => n.startsWith('add_') && n.endsWith('.bin'));
    expect(bin).toBeDefined();
    const head = await fs.readFile(fx.at(bin!));
    expect(head.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    // EM_INTEL_GEN: a zebin for the GPU, not an intermediate form.
    expect(head.readUInt16LE(18)).toBe(205);
    const { stdout: sections } = await run('readelf', ['-SW', fx.at(bin!)]);
    expect(sections).toMatch(/\.text\.add\s/);
  });

  it("the real Level Zero loader loads the prefix's driver, which finds no device: 0x78000001, no crash", async () => {
    await buildZeInit(fx.work);
    const r = await withEnvFile('LD_DEBUG=files ./zeinit');
    expect(r.stdout).toBe('zeInit=0x78000001\n');
    expect(r.stderr).toContain(`opening file=${prefix}/lib/libze_intel_gpu.so.1`);
    expect(r.stderr).toMatch(new RegExp(`file=libigdgmm\\.so\\.12 \\[0\\];  needed by ${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/lib/libze_intel_gpu\\.so\\.1`));
  });

  it("the OpenCL ICD loader loads the prefix's libigdrcl.so and still lists the machine's PoCL", async () => {
    const r = await withEnvFile('LD_DEBUG=files clinfo -l');
    expect(r.stderr).toContain(`file=${prefix}/lib/intel-opencl/libigdrcl.so [0];  generating link map`);
    expect(r.stdout).toMatch(/Platform #0: Portable Computing Language/);
  });

  it("plan --json records what it read of this machine's GPU (none) and why the driver is planned; the env file names no ZE_ENABLE_ALT_DRIVERS", async () => {
    const r = await fx.run(['plan', '--component', 'gpu-driver', '--source', 'apt', '--prefix', fx.at('q'), '--cache-dir', fx.at('cache'), '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).gpuDriver).toEqual({
      component: 'gpu-driver',
      decision: 'asked',
      why: 'gpu-driver: no Intel GPU on this host: installed as asked (its compiler, ocloc, works without one)',
      host: { gpus: [], tried: [expect.stringMatching(/^\/sys\/bus\/pci\/devices: \d+ devices, 0 display controllers$/)] },
    });
    expect(await fs.readFile(path.join(prefix, 'env.sh'), 'utf8')).not.toContain('ZE_ENABLE_ALT_DRIVERS');
  });
});

describe('a re-run over the installed driver set', () => {
  /** The re-run under strace: the cached archives it opened, the programs it started (by name), and apt-cache's commands. */
  async function traced(more: string[]): Promise<{ archives: string[]; programs: string[]; aptCache: string[]; stderr: string }> {
    const log = fx.at(`rerun-${more.join('') || 'bare'}.log`);
    const args = ['--component', 'gpu-driver', '--source', 'apt', '--prefix', prefix, '--cache-dir', fx.at('cache'), '--no-probe', '--no-smoke', ...more];
    const r = await run('strace', ['-f', '-qq', '-e', 'trace=openat,execve', '-o', log, process.execPath, BIN, ...args], { env: fx.env, maxBuffer: 64 << 20 });
    const lines = (await fs.readFile(log, 'utf8')).split('\n');
    const archives = lines.filter((l) => /openat\(/.test(l) && l.includes(`${fx.at('cache')}/sha256/`) && !/ENOENT/.test(l));
    // A process's last execve is the program it became: the attempts along PATH before it fail, and when two start at
    // once strace writes their ENOENT on a line of its own.
    const started = [...new Map(lines.filter((l) => /execve\(/.test(l) && !/ENOENT/.test(l)).map((l) => [l.split(' ')[0], l])).values()];
    const programs = started.map((l) => path.basename(/execve\("([^"]+)"/.exec(l)![1]!));
    const aptCache = started.filter((l) => /execve\("[^"]*\/apt-cache"/.test(l)).map((l) => /", "(policy|show|depends|rdepends|showpkg)"/.exec(l)?.[1] ?? 'other');
    return { archives, programs, aptCache, stderr: r.stderr };
  }

  it('reads no archive and starts no program: the plan made minutes ago is reused and the receipt answers', async () => {
    const t = await traced([]);
    expect(t.stderr).toMatch(/is up to date \(\d+ files match the receipt\)/);
    expect(t.archives).toEqual([]);
    expect(t.programs).toEqual(['node']);
  });

  it("with --refresh, plans again from apt's candidates (policy and show, side by side, a round per level) and still reads no archive", async () => {
    const t = await traced(['--refresh']);
    expect(t.stderr).toMatch(/is up to date \(\d+ files match the receipt\)/);
    expect(t.archives).toEqual([]);
    // Never a command that builds apt's whole dependency cache first (depends, show --no-all-versions: 300 ms a start).
    expect(new Set(t.aptCache)).toEqual(new Set(['policy', 'show']));
    expect(t.aptCache.filter((c) => c === 'policy')).toHaveLength(t.aptCache.filter((c) => c === 'show').length);
    expect(t.aptCache.length).toBeLessThanOrEqual(10);
    expect(t.programs).not.toContain('dpkg-deb');
  });
});

describe("the proof in the environment the env file gives (Debian 12's loader and driver, no GPU)", () => {
  let both: string;
  let proved: { exitCode: number; stdout: string; stderr: string };
  const noDevice = () => `the Level Zero driver libze_intel_gpu.so.1 (${both}/lib/libze_intel_gpu.so.1) loaded but found no device`;

  beforeAll(async () => {
    both = fx.at('both');
    proved = await fx.run(['--component', 'level-zero,gpu-driver', '--source', 'apt', '--prefix', both, '--cache-dir', fx.at('cache'), '--no-smoke']);
  }, 600_000);

  it("setup's own probe finds the prefix's driver, loaded, and no device: what a program after . env.sh gets", () => {
    expect(proved.exitCode, proved.stderr).toBe(0);
    expect(proved.stderr).toContain(`build and probe: in a new process with the environment of ${both}/env.sh`);
    expect(proved.stderr).toContain(`warning: nothing could be run: ${noDevice()}`);
    expect(proved.stderr).not.toContain('no Level Zero driver was found');
  });

  it('probe --prefix from a shell without env.sh runs in a child with it, says so, and gives the same answer', async () => {
    const r = await fx.run(['probe', '--prefix', both]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`environment: ${both}/env.sh, in a new process (this shell has not loaded it)`);
    expect(r.stderr).toContain(noDevice());
    const sourced = await run('sh', ['-c', `. '${both}/env.sh' && exec "$0" "$@"`, process.execPath, BIN, 'probe', '--prefix', both, '--verbose'], { env: fx.env, maxBuffer: 64 << 20 }).catch((e: { stderr: string }) => e);
    expect(sourced.stderr).toContain(`debug: environment: this one, which has ${both}/env.sh loaded`);
    expect(sourced.stderr).toContain(noDevice());
  });

  it('smoke --ocloc-device dg2 from a shell without env.sh compiles with the prefix\'s ocloc, and a prefix of the driver alone too', async () => {
    for (const at of [both, prefix]) {
      const r = await fx.run(['smoke', '--prefix', at, '--ocloc-device', 'dg2']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain(`ocloc: ${at}/bin/ocloc (prefix) compiled it for dg2: a zebin of`);
    }
  });

  it('smoke --ocloc-device dg2 exits 1 when ocloc fails, and when it claims success but writes nothing', async () => {
    const failing = fx.at('ocloc-failing');
    const silent = fx.at('ocloc-silent');
    await fs.writeFile(failing, '#!/bin/sh\necho "Could not determine device target: dg2" >&2\nexit 1\n', { mode: 0o755 });
    await fs.writeFile(silent, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    for (const ocloc of [failing, silent]) {
      const r = await fx.run(['smoke', '--prefix', both, '--ocloc-device', 'dg2', '--ocloc', ocloc]);
      expect(r.exitCode, `${ocloc}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/error: ocloc/);
    }
  });
});
