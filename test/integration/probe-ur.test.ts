// UR through koffi against the UR test double (tests build it; it is not Intel's Unified Runtime), and OpenCL via PoCL.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanOpenCl } from '../../src/bindings/opencl.js';
import type { RawUrProbe } from '../../src/bindings/types.js';
import { compileUrDouble } from '../support/packages.js';
import { systemPrefix } from './probe-helpers.js';

const root = path.join(__dirname, '..', '..');
const prefix = systemPrefix();
const lib = path.join(prefix, 'lib');
afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));

// The UR double and the adapters beside it as intel-cmplr-lib-ur ships them (no RUNPATH), with the UMF and hwloc
// they need; the Level Zero adapters link the prefix's libze_loader.so.1, Debian's real loader.
beforeAll(async () => {
  const built = path.join(prefix, 'ur-build');
  const libs = await compileUrDouble('2025.2.1', built, '1.0.2');
  for (const [name, data] of libs) fs.writeFileSync(path.join(lib, name), data, { mode: 0o755 });
  for (const name of ['libumf.so.1', 'libhwloc.so.15']) fs.copyFileSync(path.join(built, name), path.join(lib, name));
});

/**
 * The UR walk and the probe in a process started as the prefix's env files start one: the loader finds its adapters
 * through LD_LIBRARY_PATH, which the dynamic linker reads once at start. Runs the compiled modules (dist/ is built by
 * `npm test`).
 */
function probeInProcess(env: Record<string, string>): { walk: RawUrProbe; verbose: string } {
  const script = `
    const [{ probeUr }, { probeStack, urLoaderPath }, { formatVerbose }, { realDeps }] = await Promise.all(
      ['bindings/ur.js', 'probe/probe.js', 'caps/format.js', 'cli/real-deps.js'].map((m) => import(${JSON.stringify(path.join(root, 'dist'))} + '/' + m)));
    const prefix = process.argv[1];
    const walk = probeUr(urLoaderPath(prefix, 'linux'));
    const verbose = formatVerbose(await probeStack(prefix, { deps: realDeps() }));
    process.stdout.write(JSON.stringify({ walk, verbose }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, prefix], {
    env: { PATH: process.env.PATH!, XPU_SETUP_UR_DOUBLE_DEVICES: '2', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

describe('UR through the test double', () => {
  it('walks init, adapters, platforms and devices, and reads UR_DEVICE_INFO_IP_VERSION; probe reports it with no L0 driver', () => {
    const { walk, verbose } = probeInProcess({ LD_LIBRARY_PATH: lib });
    // level_zero and opencl load; level_zero_v2 only replaces level_zero under UR_LOADER_USE_LEVEL_ZERO_V2=1.
    expect(walk).toMatchObject({ init: 0, adapters: 2, adapterResult: 0, backends: [1, 2] });
    expect(walk.platforms).toEqual(['xpu-setup UR test double level_zero', 'xpu-setup UR test double opencl']);
    expect(walk.devices).toHaveLength(2);
    expect(walk.devices[0]).toMatchObject({ name: 'xpu-setup UR test double device', vendorId: 0x8086, ipVersion: 0x05004004, ipVersionResult: 0 });
    expect(verbose).toContain('UR device      xpu-setup UR test double device ip 0x5004004');
    expect(verbose).not.toContain('no Level Zero adapter');
    const v2 = probeInProcess({ LD_LIBRARY_PATH: lib, UR_LOADER_USE_LEVEL_ZERO_V2: '1', XPU_SETUP_UR_DOUBLE_IP: '0x030dc008' }).walk;
    expect(v2.platforms).toEqual(['xpu-setup UR test double level_zero_v2', 'xpu-setup UR test double opencl']);
    expect(v2.devices[0]).toMatchObject({ ipVersion: 0x030dc008, ipVersionResult: 0 });
  });

  it('without the library path the loader finds no adapter, and the probe says to load the env file', () => {
    const { walk, verbose } = probeInProcess({});
    expect(walk).toMatchObject({ init: 0, adapters: 0, backends: [], platforms: [], devices: [] });
    expect(verbose).toContain('UR loader        ' + path.join(lib, 'libur_loader.so.0') + ': 0 adapters, platforms: none');
    expect(verbose).toContain(
      `UR: no Level Zero adapter loaded, so SYCL and PyTorch XPU see no Intel GPU through ${path.join(lib, 'libur_loader.so.0')}: ` +
        `the loader looks for libur_adapter_level_zero.so.0 and libur_adapter_level_zero_v2.so.0 on the library path, and ${lib} is not on LD_LIBRARY_PATH; load the prefix's env file`,
    );
  });

  it('a prefix whose UMF is removed gets no Level Zero adapter from the walk, and the probe names the adapter and what it misses', () => {
    fs.renameSync(path.join(lib, 'libumf.so.1'), path.join(prefix, 'libumf.so.1.aside'));
    try {
      const { walk, verbose } = probeInProcess({ LD_LIBRARY_PATH: lib });
      expect(walk).toMatchObject({ init: 0, adapters: 1, backends: [2], platforms: ['xpu-setup UR test double opencl'], devices: [] });
      expect(verbose).toContain(
        `UR: no Level Zero adapter loaded, so SYCL and PyTorch XPU see no Intel GPU through ${path.join(lib, 'libur_loader.so.0')}: ` +
          'libur_adapter_level_zero.so.0 did not load: it needs libumf.so.1 (it comes with umf 1.x (PyPI umf, conda umf)), which the library path does not provide; ' +
          'libur_adapter_level_zero_v2.so.0 did not load: it needs libumf.so.1 (it comes with umf 1.x (PyPI umf, conda umf)), which the library path does not provide',
      );
    } finally {
      fs.renameSync(path.join(prefix, 'libumf.so.1.aside'), path.join(lib, 'libumf.so.1'));
    }
  });
});

describe('OpenCL through the ICD loader', () => {
  it('lists the PoCL CPU device with its extensions, which the matcher never takes for an Intel GPU twin', () => {
    const scan = scanOpenCl('linux');
    expect(scan.error).toBeUndefined();
    const pocl = scan.devices.find((d) => d.platform === 'Portable Computing Language');
    expect(pocl).toMatchObject({ type: 'cpu' });
    expect(pocl!.extensions).toContain('cl_khr_byte_addressable_store');
  });

  it('reports a missing ICD loader as a note, not a crash', () => {
    expect(scanOpenCl('linux', '/nonexistent/libOpenCL.so.1').error).toMatch(/cannot load/);
  });
});
