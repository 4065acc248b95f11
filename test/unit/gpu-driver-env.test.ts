// How the loader finds the prefix's GPU driver, per loader version (data/ze-loader-discovery.csv, each row found by
// running that loader): LD_LIBRARY_PATH where it is enough, ZE_ENABLE_ALT_DRIVERS only for a loader that needs it.
// Debian 12's own loader is run again here, with Debian 12's real 22.43 driver in a prefix's lib/.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFor } from '../../src/platform/index.js';
import { discoveryFor, gpuDriverEnv, loaderDiscovery, parseLoaderDiscovery } from '../../src/roles/gpu-driver.js';
import { roleEnv } from '../../src/roles/index.js';
import { ensureDebs, ensureGpuDriverDebs, type DebSet, type GpuDriverDebs } from '../support/debs.js';

const run = promisify(execFile);
const layout = layoutFor('linux-x64');
const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-gpu-env-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let driver: GpuDriverDebs;
let bookworm: DebSet;
beforeAll(async () => {
  [driver, bookworm] = await Promise.all([ensureGpuDriverDebs(), ensureDebs().then((d) => d.bookworm)]);
}, 300_000);

const stack = (loader: string) => [
  { name: 'level-zero', roles: ['ze-loader', 'ze-headers'], version: loader },
  { name: 'gpu-driver', roles: ['gpu-driver', 'opencl-icd', 'offline-compiler'], version: '22.43.24595.41' },
];

describe('loader discovery, as data', () => {
  it('every loader run here (1.8.12, 1.20.6, 1.32.0) finds the prefix driver on LD_LIBRARY_PATH, and each row says how it was run', () => {
    const rows = loaderDiscovery();
    expect(rows.map((r) => [r.loader, r.findsOnLibraryPath])).toEqual([['1.8.12', true], ['1.20.6', true], ['1.32.0', true]]);
    for (const r of rows) expect(r.checked).toMatch(/LD_DEBUG=files: .*<prefix>\/lib\/libze_intel_gpu\.so\.1/);
  });

  it('a version speaks through the newest checked row at or below it; none below, none at all', () => {
    expect(discoveryFor('1.8.12-1')!.loader).toBe('1.8.12');
    expect(discoveryFor('1.26.0')!.loader).toBe('1.20.6');
    expect(discoveryFor('1.40.1')!.loader).toBe('1.32.0');
    expect(discoveryFor('1.3.0')).toBeUndefined();
    expect(discoveryFor(undefined)).toBeUndefined();
  });

  it('the env files set no ZE_ENABLE_ALT_DRIVERS for any loader checked (nor for one this prefix does not install)', () => {
    for (const v of ['1.8.12', '1.20.6', '1.26.0', '1.32.0', '1.40.0']) expect(roleEnv(stack(v), { prefix: '/opt/x', layout })).not.toHaveProperty('ZE_ENABLE_ALT_DRIVERS');
    expect(roleEnv(stack('1.20.6').slice(1), { prefix: '/opt/x', layout })).not.toHaveProperty('ZE_ENABLE_ALT_DRIVERS');
  });

  it('a loader whose row says it does not find the driver on LD_LIBRARY_PATH gets the prefix driver by absolute path, and no other', () => {
    const head = 'loader,package,finds_driver_on_ld_library_path,checked\n';
    const rows = parseLoaderDiscovery(`${head}1.20.6,t,yes,run\n1.29.0,test double,no,run\n1.32.0,s,yes,run\n`);
    expect(gpuDriverEnv({ prefix: '/opt/x/', layout, loaderVersion: '1.30.1' }, rows)).toEqual({ ZE_ENABLE_ALT_DRIVERS: '/opt/x/lib/libze_intel_gpu.so.1' });
    expect(gpuDriverEnv({ prefix: '/opt/x', layout, loaderVersion: '1.32.0' }, rows)).toEqual({});
    expect(gpuDriverEnv({ prefix: '/opt/x', layout, loaderVersion: '1.21.0' }, rows)).toEqual({});
  });
});

describe("Debian 12's loader 1.8.12, run", () => {
  it("loads the prefix's driver with only the prefix's lib/ on LD_LIBRARY_PATH (LD_DEBUG=files), and returns 0x78000001 with no GPU", async () => {
    const lib = path.join(tmp, 'prefix', 'lib');
    mkdirSync(lib, { recursive: true });
    cpSync(driver.libDir, lib, { recursive: true });
    const src = path.join(tmp, 'zeinit.c');
    writeFileSync(src, [
      '#include <dlfcn.h>',
      '#include <stdio.h>',
      'int main(void) {',
      '  void *h = dlopen("libze_loader.so.1", RTLD_NOW);',
      '  if (!h) { printf("no loader: %s\\n", dlerror()); return 2; }',
      '  int (*init)(int) = (int (*)(int))dlsym(h, "zeInit");',
      '  printf("zeInit=0x%x\\n", (unsigned)init(0));',
      '  return 0;',
      '}',
      '',
    ].join('\n'));
    const exe = path.join(tmp, 'zeinit');
    await run('gcc', ['-o', exe, src, '-ldl']);
    // Debian 12's libze1 unpacked (not this machine's copy), then the prefix: the loader's own directory holds no driver.
    const env = { PATH: '/usr/bin:/bin', LD_LIBRARY_PATH: `${bookworm.libDir}:${lib}`, LD_DEBUG: 'files' };
    const r = await run(exe, [], { env, maxBuffer: 16 << 20 });
    expect(r.stdout).toBe('zeInit=0x78000001\n');
    expect(r.stderr).toMatch(new RegExp(`file=libze_intel_gpu\\.so\\.1 \\[0\\];\\s+dynamically loaded by ${bookworm.libDir}/libze_loader\\.so\\.1`));
    expect(r.stderr).toContain(`calling init: ${lib}/libze_intel_gpu.so.1`);
    // The same program without the prefix: the driver is not there to load.
    const bare = await run(exe, [], { env: { ...env, LD_LIBRARY_PATH: bookworm.libDir }, maxBuffer: 16 << 20 });
    expect(bare.stderr).not.toContain('calling init: ' + lib);
  });
});
