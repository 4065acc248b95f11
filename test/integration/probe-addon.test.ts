// Builds the runtime addon for real against the system loader and checks it answers like the koffi probe.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { isXpuError } from '../../src/base/errors.js';
import { silentReporter } from '../../src/base/reporter.js';
import { addonSpec, buildAddon, requireCompiler } from '../../src/build/addon.js';
import { compileSharedLibrary } from '../../src/build/compile.js';
import { probeDifferences } from '../../src/probe/probe.js';
import { probeViaAddon } from '../../src/bindings/addon.js';
import { LAYOUT } from '../../src/bindings/ze-abi.js';
import { probeZe, zeLoaderPath } from '../../src/bindings/ze.js';
import { systemPrefix } from './probe-helpers.js';

const prefix = systemPrefix();
const deps = realDeps();
afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));

describe('runtime addon build', () => {
  it('compiles against <prefix>/include, then a re-run does not recompile', async () => {
    const first = await buildAddon(prefix, { deps, reporter: silentReporter });
    expect(first.cached).toBe(false);
    expect(first.output.startsWith(path.join(prefix, 'lib', 'xpu-setup'))).toBe(true);
    expect(first.command).toContain(`-I${path.join(prefix, 'include')}`);
    const mtime = fs.statSync(first.output).mtimeMs;
    const second = await buildAddon(prefix, { deps, reporter: silentReporter });
    expect(second).toMatchObject({ cached: true, output: first.output, key: first.key });
    expect(fs.statSync(second.output).mtimeMs).toBe(mtime);
  });

  it('rebuilds when a source changes, and a failed compile reports the command and the compiler output', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-src-'));
    fs.copyFileSync(path.join(__dirname, '..', '..', 'native', 'addon', 'xpu_addon.c'), path.join(dir, 'xpu_addon.c'));
    const spec = { ...addonSpec(prefix, 'linux', dir), outDir: path.join(dir, 'out') };
    const compiler = await requireCompiler(deps);
    const a = await compileSharedLibrary(spec, compiler, deps);
    fs.appendFileSync(path.join(dir, 'xpu_addon.c'), '\nint xpu_extra_symbol(void) { return 2; }\n');
    const b = await compileSharedLibrary(spec, compiler, deps);
    expect(b.cached).toBe(false);
    expect(b.key).not.toBe(a.key);
    expect(fs.existsSync(a.output)).toBe(false);
    fs.appendFileSync(path.join(dir, 'xpu_addon.c'), '\nthis is not C;\n');
    const err = await compileSharedLibrary(spec, compiler, deps).catch((e: unknown) => e);
    expect(isXpuError(err, 'BUILD')).toBe(true);
    const msg = (err as Error).message;
    expect(msg).toContain(`command: ${compiler.path} -shared -fPIC -O2`);
    expect(msg).toMatch(/compiler output:\n.*error/s);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('addon and koffi agree', () => {
  it('both see zeInit fail with no driver, and report the same drivers (none)', async () => {
    const built = await buildAddon(prefix, { deps, reporter: silentReporter });
    const loader = zeLoaderPath(prefix, 'linux');
    const viaKoffi = probeZe(loader, deps.env);
    const viaAddon = probeViaAddon(built.output, loader);
    expect(viaKoffi.init).toBe(0x78000001);
    expect(viaAddon.init).toBe(0x78000001);
    expect(probeDifferences(viaKoffi, viaAddon)).toEqual([]);
    expect(viaAddon.headers).toEqual({ apiVersion: '1.4', haveIpVersionExt: false });
    expect(viaAddon.notes.join('\n')).toMatch(/lack ze_device_ip_version_ext_t/);
  });
});

describe('struct layouts used by the koffi bindings', () => {
  it('match what the C compiler computes from the installed headers', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-layout-'));
    const checks: [string, string, number][] = [
      ['ze_driver_properties_t', 'sizeof', LAYOUT.driverProperties.size],
      ['ze_driver_properties_t', 'driverVersion', LAYOUT.driverProperties.driverVersion],
      ['ze_driver_extension_properties_t', 'sizeof', LAYOUT.driverExtension.size],
      ['ze_device_properties_t', 'sizeof', LAYOUT.deviceProperties.size],
      ...(['type', 'vendorId', 'deviceId', 'maxMemAllocSize', 'numThreadsPerEU', 'numSlices', 'uuid', 'name'] as const).map(
        (f): [string, string, number] => ['ze_device_properties_t', f, LAYOUT.deviceProperties[f]]),
      ['ze_device_compute_properties_t', 'sizeof', LAYOUT.computeProperties.size],
      ['ze_device_compute_properties_t', 'subGroupSizes', LAYOUT.computeProperties.subGroupSizes],
      ['ze_device_module_properties_t', 'sizeof', LAYOUT.moduleProperties.size],
      ['ze_device_module_properties_t', 'fp64flags', LAYOUT.moduleProperties.fp64flags],
      ['ze_device_memory_properties_t', 'sizeof', LAYOUT.memoryProperties.size],
      ['ze_device_memory_properties_t', 'totalSize', LAYOUT.memoryProperties.totalSize],
      ['ze_pci_ext_properties_t', 'sizeof', LAYOUT.pciProperties.size],
      ['ze_command_queue_desc_t', 'sizeof', LAYOUT.commandQueueDesc.size],
      ['ze_command_queue_desc_t', 'mode', LAYOUT.commandQueueDesc.mode],
      ['ze_module_desc_t', 'sizeof', LAYOUT.moduleDesc.size],
      ['ze_module_desc_t', 'pInputModule', LAYOUT.moduleDesc.pInputModule],
      ['ze_kernel_desc_t', 'pKernelName', LAYOUT.kernelDesc.pKernelName],
      ['ze_event_desc_t', 'sizeof', LAYOUT.eventDesc.size],
      ['ze_event_desc_t', 'wait', LAYOUT.eventDesc.wait],
      ['zel_component_version_t', 'sizeof', LAYOUT.componentVersion.size],
    ];
    const lines = checks.map(([t, f]) => `printf("%zu\\n", ${f === 'sizeof' ? `sizeof(${t})` : `offsetof(${t}, ${f})`});`);
    fs.writeFileSync(path.join(dir, 'l.c'), `#include <stddef.h>\n#include <stdio.h>\n#include <level_zero/ze_api.h>\n#include <level_zero/loader/ze_loader.h>\nint main(void){${lines.join('')}return 0;}\n`);
    execFileSync('cc', ['-I', path.join(prefix, 'include'), path.join(dir, 'l.c'), '-o', path.join(dir, 'l')]);
    const got = execFileSync(path.join(dir, 'l'), { encoding: 'utf8' }).trim().split('\n').map(Number);
    expect(got).toEqual(checks.map((c) => c[2]));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
