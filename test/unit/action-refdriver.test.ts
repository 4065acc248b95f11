// refdriver: true on a runner: the driver build's apt packages installed as root or through passwordless sudo, else
// an error naming the one line to run.
import { describe, expect, it } from 'vitest';
import { installRefdriverPackages } from '../../src/cli/action.js';
import { isXpuError } from '../../src/base/errors.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';

const PACKAGES = 'opencl-headers ocl-icd-opencl-dev pocl-opencl-icd llvm-spirv-15';

/** A Linux runner with none of the packages (no files at all), whose programs answer as `ok` says. */
function runner(ok: (cmd: string) => boolean) {
  const deps = fakeDeps({ files: {}, exec: (file, args) => ({ exitCode: ok([file, ...args].join(' ')) ? 0 : 1, stdout: '', stderr: '' }) });
  return { ...deps, readDir: async () => undefined };
}

describe('refdriver packages in the action', () => {
  it('with passwordless sudo: apt-get update, then install exactly the missing packages', async () => {
    const deps = runner(() => true);
    await installRefdriverPackages(deps, false);
    expect(deps.calls).toEqual(['sudo -n true', 'sudo -n apt-get update -q', `sudo -n apt-get install -y -q --no-install-recommends ${PACKAGES}`]);
  });

  it('as root: apt-get itself, no sudo', async () => {
    const deps = runner(() => true);
    await installRefdriverPackages(deps, true);
    expect(deps.calls).toEqual(['apt-get update -q', `apt-get install -y -q --no-install-recommends ${PACKAGES}`]);
  });

  it('without root or passwordless sudo: an error naming the line to run in an earlier step, and nothing run', async () => {
    const deps = runner((cmd) => cmd !== 'sudo -n true');
    const e = await installRefdriverPackages(deps, false).catch((x: unknown) => x);
    expect(isXpuError(e, 'USAGE')).toBe(true);
    expect((e as Error).message).toMatch(/^refdriver: true needs opencl-headers, .* neither root nor passwordless sudo/);
    expect((e as { hints: string[] }).hints).toEqual([`add a step before this one: run: sudo apt-get install -y ${PACKAGES}`, 'or set refdriver: false']);
    expect(deps.calls).toEqual(['sudo -n true']);
  });

  it('nothing missing: no apt at all', async () => {
    const deps = { ...runner(() => true), env: { PATH: '/usr/bin' }, exists: async () => true, readDir: async () => ['pocl.icd', 'libOpenCL.so'] };
    await installRefdriverPackages(deps, false);
    expect(deps.calls).toEqual([]);
  });
});
