// The CPU reference driver on Debian sid's PoCL 7.1, which reads SPIR-V (clCreateProgramWithIL) and refuses the SPIR 1.2
// bitcode Debian 12's PoCL 3.1 is given: in a sid root holding PoCL (and the llvm-spirv-21 PoCL runs itself), the
// OpenCL ICD loader and sid's Level Zero loader 1.32, but not the llvm-spirv-15 the driver translates with, the driver
// and a client (test/native/refdriver_client.c), both built on this machine against the driver's own 1.32 headers, run
// real kernels through the loader and the client checks every value. The root (about 930 MB) is built once.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../e2e/cli.js';
import { driverBuildArgs, KERNELS_DIR, REFDRIVER_SOURCE_DIR } from '../support/refdriver.js';
import { reportSkip } from '../support/skips.js';

const ROOT = process.env.XPU_SETUP_SID_POCL_ROOT ?? path.join(REPO, '.cache', 'roots', 'sid-pocl');
const PACKAGES = ['pocl-opencl-icd', 'ocl-icd-libopencl1', 'libze1'];
/** The exit status by which scripts/debian-root.sh says this machine cannot build the root. */
const CANNOT_BUILD_ROOT = 3;
const INVALID_ARGUMENT = '0x78000004';
const INVALID_NATIVE_BINARY = '0x7800000f';

let cannot: string | undefined;
let work = '';
let driver = '';
let client = '';

interface Run {
  exitCode: number;
  output: string;
  values: Map<string, string>;
}

/** A program in the root with only the given environment; /tmp (where `work` is) and /sys (PoCL reads the CPUs there) bound in. */
async function inRoot(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const vars = Object.entries({ PATH: '/usr/bin:/bin', HOME: work, TMPDIR: work, POCL_CACHE_DIR: path.join(work, 'pocl-cache'), ...env });
  const r = await execa('bash', [path.join(REPO, 'scripts', 'in-root.sh'), ROOT, '--bind', '/sys', '--', 'env', '-i', ...vars.map(([k, v]) => `${k}=${v}`), ...args], {
    reject: false,
    timeout: 300_000,
  });
  const values = new Map<string, string>();
  for (const line of String(r.stdout).split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return { exitCode: r.exitCode ?? -1, output: `exit ${r.exitCode}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`, values };
}

const runClient = (mode: string, kernel: string) => inRoot([client, mode, path.join(work, kernel)], { ZE_ENABLE_ALT_DRIVERS: driver });

beforeAll(async () => {
  const made = await execa('bash', [path.join(REPO, 'scripts', 'debian-root.sh'), 'sid', ROOT, ...PACKAGES], { reject: false, timeout: 1_200_000 });
  if (made.exitCode === CANNOT_BUILD_ROOT) {
    cannot = made.stderr.trim().split('\n').pop()?.replace(/^debian-root\([^)]*\): /, '') || `the root ${ROOT} cannot be built here`;
    reportSkip('the sid PoCL 7 suite', cannot);
    return;
  }
  if (made.exitCode !== 0) throw new Error(`scripts/debian-root.sh failed (exit ${made.exitCode}):\n${made.stderr}`);
  work = await tempDir('sid-pocl');
  driver = path.join(work, 'libze_xpu_setup_refdriver.so');
  client = path.join(work, 'refdriver_client');
  const include = path.join(REFDRIVER_SOURCE_DIR, 'include');
  await execa('cc', driverBuildArgs(include, driver));
  await execa('cc', ['-O2', `-I${include}`, path.join(REPO, 'test', 'native', 'refdriver_client.c'), '-o', client, '-lze_loader', '-lOpenCL', '-lpthread']);
  for (const k of ['vector_add.spv', 'atomics20.spv', 'spec_const.spv']) await fs.copyFile(path.join(KERNELS_DIR, k), path.join(work, k));
}, 1_500_000);

beforeEach((ctx) => {
  if (cannot) ctx.skip(cannot);
});

afterAll(async () => {
  if (work) await fs.rm(work, { recursive: true, force: true });
});

describe("the reference driver on sid's PoCL 7.1 and loader 1.32", () => {
  it("the root has PoCL 7 and loader 1.32, and not the driver's translator (llvm-spirv-15): a kernel built there went to PoCL as SPIR-V", async () => {
    const version = (p: string) => `$(dpkg-query -W -f '\${Version}' ${p})`;
    const r = await inRoot(['sh', '-c', `echo pocl=${version('pocl-opencl-icd')}; echo loader=${version('libze1')}; echo translator=$(command -v llvm-spirv-15 || echo none)`]);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.values.get('pocl')).toMatch(/^7\./);
    expect(r.values.get('loader')).toMatch(/^1\.32\./);
    expect(r.values.get('translator')).toBe('none');
  });

  it('OpenCL 2.0 atomics on generic pointers build from SPIR-V and count every work-item', async () => {
    const r = await runClient('atomics', 'atomics20.spv');
    expect(r.exitCode, r.output).toBe(0);
    expect(r.values.get('atomics.module')).toBe('0x0');
    expect(r.values.get('atomics.counter')).toBe(r.values.get('atomics.expected'));
    expect(r.values.get('atomics.wrong')).toBe('0');
  });

  it('specialization constants written into the SPIR-V reach the kernel; an unknown SpecId is refused', async () => {
    const r = await runClient('specialize', 'spec_const.spv');
    expect(r.exitCode, r.output).toBe(0);
    for (const k of ['defaults', 'set', 'partial']) expect(r.values.get(`spec.${k}.wrong`), k).toBe('0');
    expect(r.values.get('spec.unknownId')).toBe(INVALID_ARGUMENT);
  });

  it("a module made from zeModuleGetNativeBinary's bytes (SPIR-V, no bitcode) runs as the first did; a cut or damaged one is refused", async () => {
    const r = await runClient('native', 'spec_const.spv');
    expect(r.exitCode, r.output).toBe(0);
    expect(r.values.get('native.wrong')).toBe('0');
    expect(r.values.get('native.truncated')).toBe(INVALID_NATIVE_BINARY);
    expect(r.values.get('native.damaged')).toBe(INVALID_NATIVE_BINARY);
  });

  it('vector_add runs through an immediate list and copies by region come out as a reference copy', async () => {
    const seq = await runClient('sequence', 'vector_add.spv');
    expect(seq.exitCode, seq.output).toBe(0);
    expect(seq.values.get('sequence.result')).toBe('ok');
    const region = await runClient('region', 'vector_add.spv');
    expect(region.exitCode, region.output).toBe(0);
    for (const k of ['packed2d', 'pitched2d', 'pitched3d', 'oneSlice']) expect(region.values.get(`region.${k}.wrong`), k).toBe('0');
  });
});
