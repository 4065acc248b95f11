// The compiler half of the smoke test with Debian 12's real ocloc 22.43 and no GPU: `smoke --ocloc-device dg2` proves
// ocloc and IGC load and make a zebin; a device the compiler predates, and missing libraries, fail with the reason.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withGpuDriver } from './probe-helpers.js';

const gpu = withGpuDriver();
const { prefix, cli } = gpu;

function smoke(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, 'smoke', '--prefix', prefix, '--json', ...args], { encoding: 'utf8', env: gpu.env(env) });
}

describe('smoke with ocloc and no GPU', () => {
  it('--ocloc-device dg2 compiles a zebin and says the kernel was not run', () => {
    const r = smoke(['--ocloc', gpu.driver.ocloc, '--ocloc-device', 'dg2']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { ran: boolean; notRun: { code: string; message: string }; ocloc: Record<string, unknown> };
    expect(doc.ran).toBe(false);
    expect(doc.notRun).toMatchObject({ code: 'NO_DEVICE', message: expect.stringContaining('loaded but found no device') });
    expect(doc.ocloc).toMatchObject({ ocloc: gpu.driver.ocloc, via: 'flag', device: 'dg2', machine: 205, internalOptions: ['-cl-intel-allow-zebin'] });
    expect(doc.ocloc.sections).toContain('.text.vector_add');
    expect(doc.ocloc.sections).toContain('.ze_info');
  });

  it('an IP version works as the device name (what a probed device gives)', () => {
    const r = smoke(['--ocloc', gpu.driver.ocloc, '--ocloc-device', '12.55.8']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).ocloc).toMatchObject({ device: '12.55.8', machine: 205 });
  });

  it('a GPU newer than the compiler (Battlemage for 22.43) fails, naming that', () => {
    const r = smoke(['--ocloc', gpu.driver.ocloc, '--ocloc-device', 'bmg']);
    expect(r.status).toBe(1);
    const err = JSON.parse(r.stdout).error as { code: string; message: string; hints: string[] };
    expect(err.code).toBe('SMOKE');
    expect(err.message).toContain('Cannot get HW Info for device bmg');
    expect(err.hints[0]).toContain('this ocloc does not know the device "bmg"');
  });

  it('without IGC on the library path ocloc cannot start, and the hint says to load the env file', () => {
    const r = smoke(['--ocloc', gpu.driver.ocloc, '--ocloc-device', 'dg2'], { LD_LIBRARY_PATH: '' });
    expect(r.status).toBe(1);
    const err = JSON.parse(r.stdout).error as { message: string; hints: string[] };
    expect(err.message).toContain('libocloc.so');
    expect(err.hints[0]).toContain('load the prefix\'s env file');
  });

  it('ocloc found on PATH is used when no flag names one', () => {
    const r = smoke(['--ocloc-device', 'dg2'], { PATH: `${path.dirname(gpu.driver.ocloc)}:${process.env.PATH}` });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).ocloc).toMatchObject({ ocloc: gpu.driver.ocloc, via: 'PATH' });
  });

  it('--ocloc-device without any ocloc is an error listing where it looked', () => {
    const r = smoke(['--ocloc', '/nonexistent/ocloc', '--ocloc-device', 'dg2']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('/nonexistent/ocloc (flag): not there') });
  });
});
