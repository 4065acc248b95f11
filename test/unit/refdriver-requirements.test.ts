// The reference driver's preflight: a missing OpenCL header, ICD, PoCL or llvm-spirv stops the build before any
// compiler runs, with the one apt line that fixes it.
import { describe, expect, it } from 'vitest';
import { buildRefDriver, checkRefDriverRequirements } from '../../src/build/refdriver.js';
import { isXpuError, XpuError } from '../../src/base/errors.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';

/** A Linux machine whose file system holds exactly `present` (directories listed by their children). */
function machine(present: string[], env: Record<string, string> = { PATH: '/usr/bin' }) {
  const deps = fakeDeps({ env, exists: (p) => present.includes(p) });
  deps.readDir = async (d) => {
    const kids = present.filter((p) => p.startsWith(d + '/')).map((p) => p.slice(d.length + 1).split('/')[0]!);
    return kids.length ? [...new Set(kids)] : undefined;
  };
  return deps;
}

const everything = [
  '/usr/include/CL/cl.h',
  '/usr/lib/x86_64-linux-gnu/libOpenCL.so',
  '/etc/OpenCL/vendors/pocl.icd',
  '/usr/bin/llvm-spirv-15',
];

async function failure(p: Promise<unknown>): Promise<XpuError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  if (!isXpuError(e)) throw new Error(`expected an XpuError, got ${String(e)}`);
  return e;
}

describe('reference driver requirements', () => {
  it('passes when the header, the ICD loader, PoCL and llvm-spirv-15 are all there', async () => {
    await expect(checkRefDriverRequirements(machine(everything))).resolves.toBeUndefined();
  });

  it('names every missing piece and gives one apt line with exactly their packages', async () => {
    const e = await failure(checkRefDriverRequirements(machine([])));
    expect(e.code).toBe('COMPILER');
    expect(e.message).toContain('CL/cl.h');
    expect(e.message).toContain('libOpenCL.so');
    expect(e.message).toContain('PoCL');
    expect(e.message).toContain('llvm-spirv-15');
    expect(e.hints[0]).toBe('Debian/Ubuntu: sudo apt-get install -y opencl-headers ocl-icd-opencl-dev pocl-opencl-icd llvm-spirv-15');
  });

  it('asks only for what is missing', async () => {
    const e = await failure(checkRefDriverRequirements(machine(everything.filter((p) => !p.includes('llvm-spirv')))));
    expect(e.hints[0]).toBe('Debian/Ubuntu: sudo apt-get install -y llvm-spirv-15');
    const header = await failure(checkRefDriverRequirements(machine(everything.filter((p) => !p.endsWith('cl.h')))));
    expect(header.hints[0]).toBe('Debian/Ubuntu: sudo apt-get install -y opencl-headers');
  });

  it('honours XPU_SETUP_LLVM_SPIRV and CPATH', async () => {
    const present = ['/opt/cl/include/CL/cl.h', '/usr/lib/x86_64-linux-gnu/libOpenCL.so', '/etc/OpenCL/vendors/pocl.icd', '/opt/llvm/llvm-spirv'];
    await expect(
      checkRefDriverRequirements(machine(present, { PATH: '/usr/bin', CPATH: '/opt/cl/include', XPU_SETUP_LLVM_SPIRV: '/opt/llvm/llvm-spirv' })),
    ).resolves.toBeUndefined();
  });

  it('stops before running any compiler', async () => {
    const deps = machine([]);
    const e = await failure(buildRefDriver('/nonexistent/prefix', { deps, reporter: silentReporter }));
    expect(e.code).toBe('COMPILER');
    expect(deps.calls).toEqual([]);
  });

  it('finds everything on this machine, whose test prerequisites install it', async () => {
    await expect(checkRefDriverRequirements(realDeps())).resolves.toBeUndefined();
  });
});
