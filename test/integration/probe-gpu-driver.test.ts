// Debian 12's real GPU driver (22.43) beside the real loader 1.8.12, with no GPU: the driver loads and finds no device,
// and probe and smoke say exactly that, without the crash an enumeration after the failed zeInit would cause.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/debs.js';
import { withGpuDriver } from './probe-helpers.js';

const gpu = withGpuDriver();
const { prefix, cli } = gpu;

const driverEnv = gpu.env;

describe('the 22.43 driver on a machine without a GPU', () => {
  it('probe says the driver loaded and found no device, with zeInit 0x78000001 and no crash', () => {
    const r = spawnSync(process.execPath, [cli, 'probe', '--prefix', prefix, '--json'], { encoding: 'utf8', env: driverEnv() });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    const doc = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string; hints: string[]; details: Record<string, unknown> } };
    expect(doc.error.code).toBe('NO_DEVICE');
    expect(doc.error.message).toContain(`libze_intel_gpu.so.1 (${path.join(gpu.driver.libDir, 'libze_intel_gpu.so.1')}) loaded but found no device`);
    expect(doc.error.message).toContain('0x78000001');
    expect(doc.error.message).not.toContain('none of them loaded');
    expect(doc.error.details.zeInit).toBe(0x78000001);
    expect(doc.error.details.drivers).toEqual([
      { name: 'libze_intel_gpu.so.1', path: path.join(gpu.driver.libDir, 'libze_intel_gpu.so.1'), loaded: true },
      { name: 'libze_intel_vpu.so.1', loaded: false, why: 'not on the library search path' },
    ]);
    // This machine has no Intel GPU on PCI: the kernel-side reason says so instead of "install the driver".
    expect(doc.error.hints.join('\n')).toContain('no Intel GPU on this machine');
    expect(doc.error.hints.join('\n')).not.toContain('install the Intel GPU user-mode driver');
  });

  it('the loader really opened the driver (LD_DEBUG=files)', () => {
    const r = spawnSync(process.execPath, [cli, 'probe', '--prefix', prefix, '--json'], { encoding: 'utf8', env: driverEnv({ LD_DEBUG: 'files' }) });
    expect(r.signal).toBeNull();
    expect(r.stderr).toMatch(/file=libze_intel_gpu\.so\.1 \[0\];\s+dynamically loaded by \S*libze_loader\.so\.1/);
    expect(r.stderr).toContain(`calling init: ${path.join(gpu.driver.libDir, 'libze_intel_gpu.so.1')}`);
  });

  it('smoke fails the same way, as NO_DEVICE, without enumerating', () => {
    const r = spawnSync(process.execPath, [cli, 'smoke', '--prefix', prefix, '--json'], { encoding: 'utf8', env: driverEnv() });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    const doc = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(doc.error).toMatchObject({ code: 'NO_DEVICE' });
    expect(doc.error.message).toContain('loaded but found no device');
  });

  it('the shared enumeration refuses to call zeDriverGet after the failed zeInit (loader 1.8.12 would crash there)', () => {
    const script = `
      const { zeApiFor, driverHandles } = await import(${JSON.stringify(path.join(repoRoot(), 'dist', 'bindings', 'ze.js'))});
      const { Arena } = await import(${JSON.stringify(path.join(repoRoot(), 'dist', 'bindings', 'ffi.js'))});
      const api = zeApiFor(${JSON.stringify(path.join(prefix, 'lib', 'libze_loader.so.1'))}, process.env);
      const init = api.init();
      try { driverHandles(api, new Arena()); console.log('enumerated'); } catch (e) { console.log(init.toString(16), e.message); }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: driverEnv() });
    expect(r.signal).toBeNull();
    expect(r.stdout.trim()).toMatch(/^78000001 refusing to enumerate Level Zero drivers through \S+: zeInit returned ZE_RESULT_ERROR_UNINITIALIZED/);
  });
});
