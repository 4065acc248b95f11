// The GPU user-mode driver from a conda channel: packages in conda-forge's shape (intel-compute-runtime on intel-gmmlib,
// intel-graphics-compiler and the GCC 14 runtime) repacked from Debian 12's real 22.43 driver files
// (test/support/gpu-driver-conda.ts), served by the local index, planned from their own depends, relocated, and found
// through the env file alone by ocloc, the real Level Zero loader and the real OpenCL ICD loader (no GPU here).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { readElfNeeds } from '../../src/formats/elf.js';
import { buildGpuDriverConda, GPU_DRIVER_CONDA } from '../support/gpu-driver-conda.js';
import { RUNTIME_FIXTURE } from '../support/packages.js';
import type { CliRun } from './cli.js';
import { buildZeInit, withFixtureRun } from '../support/fixture-run.js';

const run = promisify(execFile);
const { runtime, igc, gmmlib, icdPlaceholder, shortPrefix } = GPU_DRIVER_CONDA;
const RUNTIME = ['_libgcc_mutex', '_openmp_mutex', 'libgcc', 'libgomp', 'libstdcxx'];
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const fx = withFixtureRun('gpu-driver-conda', { more: buildGpuDriverConda });
let prefix: string;
let setup: CliRun;

const withEnvFile = (script: string, at = prefix, cwd?: string) => fx.inEnvFile(at, script, cwd);

const setupFrom = (channel: 'gpu-driver' | 'gpu-driver-short', at: string, ...more: string[]): Promise<CliRun> =>
  fx.run(['--component', 'gpu-driver', '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl(channel), '--prefix', at, '--cache-dir', fx.at('cache'), '--no-probe', '--no-smoke', ...more]);

/** ocloc compiles a kernel for dg2 into a zebin with the env file of `at` sourced; returns the zebin's first bytes. */
async function compileForDg2(at: string, dir: string): Promise<Buffer> {
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'add.cl'), 'kernel void add(global const float *a, global const float *b, global float *c) { size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n');
  // 22.x writes the older patch-token binary unless zebin is allowed.
  const r = await withEnvFile('command -v ocloc && ocloc compile -file add.cl -device dg2 -output add -internal_options -cl-intel-allow-zebin', at, dir);
  expect(r.stdout.split('\n')[0]).toBe(`${at}/bin/ocloc`);
  expect(r.stdout).toMatch(/Build succeeded/);
  const bin = (await fs.readdir(dir)).find((n) => n.startsWith('add_') && n.endsWith('.bin'));
  expect(bin).toBeDefined();
  return fs.readFile(path.join(dir, bin!));
}

/** The ELF files (not links) under the prefix's lib/ and bin/. */
async function elfFiles(at: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && readElfNeeds(await fs.readFile(p))) files.push(p);
    }
  };
  for (const d of ['lib', 'bin']) await walk(path.join(at, d));
  return files;
}

beforeAll(async () => {
  prefix = fx.at('p');
  setup = await setupFrom('gpu-driver', prefix, '--verbose');
}, 600_000);

interface JsonArchive {
  package: string;
  version: string;
  runtime?: { install?: boolean; why?: string };
}

describe('gpu-driver from a conda channel shaped like conda-forge (Debian 12 files, repacked)', () => {
  it("plans intel-compute-runtime and the closure of its own depends; the rule leaves the GCC runtime to this machine's newer-or-equal one", async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.components).toEqual([expect.objectContaining({ name: 'gpu-driver', version: runtime.version, source: `conda ${fx.index.condaChannelUrl('gpu-driver')}` })]);
    const packages: string[] = receipt.archives.map((a: { package: string }) => a.package);
    expect(packages[0]).toBe(runtime.name);
    expect([...packages].sort()).toEqual([gmmlib.name, runtime.name, igc.name].sort());
    const planned = receipt.plan.components.find((c: { name: string }) => c.name === 'gpu-driver');
    expect(planned.archives.find((a: JsonArchive) => a.package === igc.name)).toMatchObject({ version: igc.version, requiredBy: [
      `${runtime.name} ${runtime.version}: ${igc.name} >=${igc.version},<2.0a0`,
      `${runtime.name} ${runtime.version} (the major.minor it was built against): ${igc.name} <1.1.0a0`,
    ] });
    // Why: every version of libstdc++ the set's ELFs need (at most GLIBCXX_3.4.30: Debian 12's build) is one this machine's defines.
    const hostCxx = readElfNeeds(await fs.readFile(await fs.realpath('/usr/lib/x86_64-linux-gnu/libstdc++.so.6')))!;
    const needed = new Set<string>();
    for (const f of await elfFiles(prefix)) {
      for (const v of readElfNeeds(await fs.readFile(f))!.versionNeeds.filter((n) => n.file === 'libstdc++.so.6')) v.versions.forEach((x) => needed.add(x));
    }
    expect(needed).toContain('GLIBCXX_3.4.30');
    expect([...needed].filter((v) => !hostCxx.versionDefs.includes(v))).toEqual([]);
    const left: JsonArchive[] = planned.leftToHost;
    expect(left.map((a) => a.package).sort()).toEqual(RUNTIME);
    for (const a of left) expect(a.runtime, a.package).toEqual({ install: false, why: 'satisfied by the host' });
    expect(setup.stderr).toContain(`runtime library libstdcxx ${RUNTIME_FIXTURE.gcc.version}: satisfied by the host: not installed`);
    await expect(fs.lstat(path.join(prefix, 'lib', 'libstdc++.so.6'))).rejects.toThrow();
  });

  it("rewrites the ICD file's build prefix to the prefix (info/paths.json, text mode); the machine's ICDs sit beside it", async () => {
    expect(setup.stderr).toContain(`${runtime.name}-${runtime.version}-${runtime.build}.conda: build prefix rewritten to ${prefix} in etc/OpenCL/vendors/intel.icd`);
    const vendors = path.join(prefix, 'etc/OpenCL/vendors');
    expect(await fs.readFile(path.join(vendors, 'intel.icd'), 'utf8')).toBe(`${prefix}/lib/intel-opencl/libigdrcl.so\n`);
    const system = (await fs.readdir('/etc/OpenCL/vendors')).filter((n) => n.endsWith('.icd') && n !== 'intel.icd');
    expect(system.length).toBeGreaterThan(0);
    for (const n of system) expect(await fs.readFile(path.join(vendors, n), 'utf8')).toBe(await fs.readFile(path.join('/etc/OpenCL/vendors', n), 'utf8'));
    const { stdout } = await run('grep', ['-rlF', icdPlaceholder.slice(0, 60), prefix]).catch((e: { stdout: string }) => e);
    expect(stdout).toBe('');
  });

  it('after . env.sh alone, ocloc compiles an OpenCL kernel for dg2 into a zebin (no GPU needed)', async () => {
    // The package ships only bin/ocloc-22.43.1: the prefix's bin/ocloc is a link to it, which `command -v` finds.
    expect(await fs.readlink(path.join(prefix, 'bin', 'ocloc'))).toBe(path.basename(GPU_DRIVER_CONDA.ocloc));
    expect(setup.stderr).not.toContain('no bin/ocloc');
    const head = await compileForDg2(prefix, fx.at('kernel'));
    expect(head.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    // EM_INTEL_GEN: a zebin for the GPU, not an intermediate form.
    expect(head.readUInt16LE(18)).toBe(205);
  });

  it("the real Level Zero loader (Debian's 1.8.12) loads the prefix's driver, which finds no device: 0x78000001, no crash", async () => {
    await buildZeInit(fx.work);
    const r = await withEnvFile('LD_DEBUG=files ./zeinit');
    expect(r.stdout).toBe('zeInit=0x78000001\n');
    expect(r.stderr).toContain(`opening file=${prefix}/lib/libze_intel_gpu.so.1`);
    expect(r.stderr).toMatch(new RegExp(`file=libigdgmm\\.so\\.12 \\[0\\];  needed by ${escape(prefix)}/lib/libze_intel_gpu\\.so\\.1`));
    expect(r.stderr).toContain(`calling init: ${prefix}/lib/libigdgmm.so.12`);
  });

  it("clinfo, with OCL_ICD_VENDORS from the env file, loads the prefix's Intel ICD and still lists PoCL", async () => {
    const sh = await fs.readFile(path.join(prefix, 'env.sh'), 'utf8');
    expect(sh).toContain(`OCL_ICD_VENDORS='${prefix}/etc/OpenCL/vendors'`);
    const r = await withEnvFile('LD_DEBUG=files clinfo -l');
    expect(r.stderr).toContain(`file=${prefix}/lib/intel-opencl/libigdrcl.so [0];  generating link map`);
    expect(r.stderr).toContain(`file=libigdgmm.so.12 [0];  needed by ${prefix}/lib/intel-opencl/libigdrcl.so [0]`);
    expect(r.stderr).toContain(`calling init: ${prefix}/lib/libigdgmm.so.12`);
    // With no GPU the Intel ICD adds no platform of its own; the machine's PoCL is still there.
    expect(r.stdout).toMatch(/Platform #\d: Portable Computing Language/);
  });

  it("doctor finds the prefix's driver, as a program started after the env file does, and it loads", async () => {
    const r = await fx.run(['doctor', '--prefix', prefix, '--json']);
    const check = JSON.parse(r.stdout).checks.find((c: { id: string }) => c.id === 'user-driver');
    expect(check).toMatchObject({ status: 'ok', message: `${prefix}/lib/libze_intel_gpu.so.1 (the prefix's, found once its env file is loaded) loads` });
  });

  it('every library and program of the prefix resolves all it needs, the driver set from the prefix', async () => {
    const files = await elfFiles(prefix);
    expect(files.length).toBeGreaterThanOrEqual(9);
    const ownSonames = ['libigdgmm.so.12', 'libocloc.so', 'libigc.so.1', 'libopencl-clang.so.14', 'libiga64.so.1'];
    for (const f of files) {
      const { stdout } = await withEnvFile(`ldd '${f}'`);
      expect(stdout, f).not.toMatch(/not found/);
      for (const line of stdout.split('\n')) {
        const [name, , where] = line.trim().split(/\s+/);
        if (name && ownSonames.includes(name)) expect(where, `${f}: ${name}`).toBe(path.join(prefix, 'lib', name));
      }
    }
  });
});

describe('a binary-mode placeholder (intel-graphics-compiler built in an unpadded prefix)', () => {
  it('is refused before the swap when the prefix is longer than the placeholder, naming the file and what to do', async () => {
    const at = fx.at('a-prefix-longer-than-sixteen-bytes');
    const r = await setupFrom('gpu-driver-short', at);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain(`${shortPrefix.file} from ${igc.name}-${igc.version}-${shortPrefix.build}.conda`);
    expect(r.stderr).toContain(`the prefix ${at} (${at.length} bytes) is longer than the package's build placeholder (${shortPrefix.placeholder.length} bytes)`);
    expect(r.stderr).toContain(`hint: choose a prefix of at most ${shortPrefix.placeholder.length} bytes`);
    expect(r.stderr).toContain('the prefix was left as it was');
    await expect(fs.access(at)).rejects.toThrow();
  });

  it("is rewritten in a prefix that fits, padded with NULs, and the rewritten libigc still compiles", async () => {
    const dir = await fs.mkdtemp('/tmp/xc');
    try {
      const at = path.join(dir, 'p');
      expect(at.length).toBeLessThanOrEqual(shortPrefix.placeholder.length);
      const r = await setupFrom('gpu-driver-short', at, '--verbose');
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain(`build prefix rewritten to ${at} in ${shortPrefix.file}`);
      const lib = await fs.readFile(path.join(at, shortPrefix.file));
      expect(lib.includes(Buffer.from(shortPrefix.placeholder))).toBe(false);
      expect(lib.includes(Buffer.from(`${at}/include/llvm/`))).toBe(true);
      const head = await compileForDg2(at, path.join(dir, 'kernel'));
      expect(head.readUInt16LE(18)).toBe(205);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
