// UR adapters that call functions newer loaders added, beside Debian 12's loader 1.8.12 and beside a loader double that
// has them: the pre-swap tree check reads each undefined symbol, and the UR test double's walk (dlopen RTLD_NOW) agrees.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStagedTree } from '../../src/build/staged-check.js';
import { describeUnmet, unmetLibraryNeeds } from '../../src/machine/library-needs.js';
import type { InstallPlan } from '../../src/records/plan.js';
import { realDeps } from '../../src/cli/real-deps.js';
import type { RawUrProbe } from '../../src/bindings/types.js';
import { compileElf, compileUrDouble, zeLoaderDouble } from '../support/packages.js';
import { SYSTEM_LOADER_DIR } from './probe-helpers.js';

const root = path.join(__dirname, '..', '..');
/** What the 2026 UR Level Zero adapters call that loader 1.25.0 added. */
const NEW_CALLS = ['zeDeviceSynchronize', 'zeCommandListAppendLaunchKernelWithArguments'];
let work: string;
let tree: string;
let lib: string;

// A new tree as intel-cmplr-lib-ur 2026.1.0 (its test double, adapters linked -z now), umf and hwloc lay it out, with
// Debian 12's real loader (1.8.12) as the Level Zero component's libze_loader.so.1.
beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-ur-symbols-'));
  tree = path.join(work, 'tree');
  lib = path.join(tree, 'lib');
  fs.mkdirSync(lib, { recursive: true });
  const built = path.join(work, 'ur-build');
  const libs = await compileUrDouble('2026.1.0', built, '1.1.0', { zeCalls: NEW_CALLS, bindNow: true });
  for (const [name, data] of libs) fs.writeFileSync(path.join(lib, name), data, { mode: 0o755 });
  for (const name of ['libumf.so.1', 'libhwloc.so.15']) fs.copyFileSync(path.join(built, name), path.join(lib, name));
  fs.copyFileSync(fs.realpathSync(path.join(SYSTEM_LOADER_DIR, 'libze_loader.so.1')), path.join(lib, 'libze_loader.so.1.8.0'));
  fs.symlinkSync('libze_loader.so.1.8.0', path.join(lib, 'libze_loader.so.1'));
});

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const deps = () => ({ ...realDeps(), env: { PATH: process.env.PATH } });
const plan = { platform: 'linux-x64', host: { native: true } } as unknown as InstallPlan;

/** The UR double's walk in a process started as the env files start one (dist/ is built by `npm test`). */
function walk(): RawUrProbe {
  const script = `const { probeUr } = await import(${JSON.stringify(path.join(root, 'dist', 'bindings', 'ur.js'))});
    process.stdout.write(JSON.stringify(probeUr(process.argv[1])));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, path.join(lib, 'libur_loader.so.0')], {
    env: { PATH: process.env.PATH!, LD_LIBRARY_PATH: lib, XPU_SETUP_UR_DOUBLE_DEVICES: '1' },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

/** Puts `file` in as the tree's libze_loader.so.1. */
function useLoader(file: string): void {
  fs.rmSync(path.join(lib, 'libze_loader.so.1'));
  fs.symlinkSync(path.basename(file), path.join(lib, 'libze_loader.so.1'));
}

describe('undefined symbols of a UR over an older loader', () => {
  it('refuses the tree over loader 1.8.12, naming each adapter, the symbols, where it looked and the loader release that has them', async () => {
    const problems = (await checkStagedTree(tree, plan, deps())).problems;
    expect(problems).toHaveLength(2);
    for (const [i, adapter] of ['libur_adapter_level_zero.so.0', 'libur_adapter_level_zero_v2.so.0'].entries()) {
      expect(problems[i]).toContain(`lib/${adapter} calls zeCommandListAppendLaunchKernelWithArguments and zeDeviceSynchronize, which no library it loads with defines (looked in lib/${adapter}, lib/libumf.so.1, lib/libze_loader.so.1, `);
      expect(problems[i]).toContain('/libc.so.6');
      expect(problems[i]).toContain(
        'zeCommandListAppendLaunchKernelWithArguments and zeDeviceSynchronize first appear in the Level Zero loader 1.25.0 (oneapi-src/level-zero v1.25.0 is the first loader release that exports it',
      );
      expect(problems[i]).toContain("install level-zero >= 1.25.0 (`--require 'level-zero>=1.25.0'`)");
    }
    // The OpenCL adapter and the UR loader take nothing the loader lacks.
    expect(problems.join('\n')).not.toContain('libur_adapter_opencl');
  });

  it('agrees with the dynamic linker: the walk loads no Level Zero adapter over 1.8.12', () => {
    expect(walk()).toMatchObject({ init: 0, adapters: 1, backends: [2] });
  });

  it('passes the tree beside a loader that exports them, and the walk then loads the Level Zero adapter', async () => {
    await compileElf(zeLoaderDouble(NEW_CALLS), path.join(work, 'loader-double'));
    fs.copyFileSync(path.join(work, 'loader-double', 'libze_loader.so.1'), path.join(lib, 'libze_loader.so.1.25.0'));
    useLoader(path.join(lib, 'libze_loader.so.1.25.0'));
    try {
      expect(await checkStagedTree(tree, plan, deps())).toEqual({ problems: [], notes: [] });
      expect(walk()).toMatchObject({ init: 0, adapters: 2, backends: [1, 2], platforms: ['xpu-setup UR test double level_zero', 'xpu-setup UR test double opencl'] });
    } finally {
      useLoader(path.join(lib, 'libze_loader.so.1.8.0'));
    }
  });

  it('takes weak undefined symbols and those of the dynamic linker as resolved (libc itself passes)', async () => {
    const only = await unmetLibraryNeeds(deps(), tree, ['lib'], [], ['libur_loader.so.0', 'libumf.so.1', 'libhwloc.so.15', 'libze_loader.so.1.8.0']);
    expect(only.map(describeUnmet)).toEqual([]);
  });
});
