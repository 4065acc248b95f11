// The whole stack as a user runs it with no Intel GPU: setup --refdriver, then probe, smoke and doctor through
// the real loader -> the CPU reference driver -> PoCL.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureIndex, type FixtureIndex } from '../support/index-server.js';
import { REPO, runCli, scrubbedEnv, tempDir, type CliRun } from './cli.js';

let index: FixtureIndex;
let work: string;
let env: Record<string, string>;
let prefix: string;
let setup: CliRun;

beforeAll(async () => {
  index = await startFixtureIndex();
  work = await tempDir('refdriver');
  env = scrubbedEnv(path.join(work, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl });
  prefix = path.join(work, 'prefix');
  setup = await runCli(['--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm'), '--refdriver', '--json'], env);
});

afterAll(async () => {
  await index?.close();
  await fs.rm(work, { recursive: true, force: true });
});

describe('xpu-setup --refdriver from a fresh prefix', () => {
  it('ends with a smoke test that computed and checked every value, exit 0', () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    const doc = JSON.parse(setup.stdout);
    expect(doc.verify.smoke.ok).toBe(true);
    expect(doc.verify.smoke.value).toMatchObject({ kernel: 'vector_add', elements: 1024, checked: 1024 });
    expect(doc.verify.probe.value.devices[0].name).toBe('xpu-setup CPU reference device (PoCL)');
    expect(setup.stderr).toMatch(/the active Level Zero device is the CPU reference driver .*libze_xpu_setup_refdriver-[0-9a-f]+\.so, not an Intel GPU/);
  });

  it('writes ZE_ENABLE_ALT_DRIVERS as one full path, never with a trailing comma', async () => {
    const doc = JSON.parse(setup.stdout);
    const driver = doc.refdriver as string;
    expect(driver.startsWith(`${prefix}/lib/`)).toBe(true);
    expect(await fs.stat(driver)).toBeTruthy();
    const sh = await fs.readFile(path.join(prefix, 'env.sh'), 'utf8');
    expect(sh).toContain(`export ZE_ENABLE_ALT_DRIVERS='${driver}'\n`);
    const json = JSON.parse(await fs.readFile(path.join(prefix, 'env.json'), 'utf8'));
    const alt = json.vars.find((v: { name: string }) => v.name === 'ZE_ENABLE_ALT_DRIVERS').value as string;
    expect(alt.endsWith(',')).toBe(false);
    expect(alt.includes(',,')).toBe(false);
  });

  it('a program built against the prefix and run with env.sh gets a device from the reference driver', async () => {
    const src = path.join(work, 'count.c');
    await fs.writeFile(src, `#include <stdio.h>
#include <ze_api.h>
int main(void){ if (zeInit(0)) return 2; uint32_t n = 0; zeDriverGet(&n, NULL); ze_driver_handle_t d; n = 1; zeDriverGet(&n, &d);
uint32_t m = 0; zeDeviceGet(d, &m, NULL); printf("%u\\n", m); return 0; }
`);
    const exe = path.join(work, 'count');
    const r = await execa('sh', ['-c', `. '${prefix}/env.sh' && cc '${src}' $(pkg-config --cflags --libs level-zero) -o '${exe}' && '${exe}'`], { env: { PATH: process.env.PATH! }, extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('1');
  });

  it('a second run is a no-op for the prefix and reuses the built driver and addon', async () => {
    const again = await runCli(['--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm'), '--refdriver'], env);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/is up to date/);
    expect(again.stderr).toMatch(/CPU reference driver up to date/);
    expect(again.stderr).toMatch(/runtime addon up to date/);
  });
});

describe('Triton variables from the probe', () => {
  it('setup writes TRITON_INTEL_DEVICE_ARCH and _EXTENSIONS of the probed device into the env files and the receipt', async () => {
    const r = await runCli(['--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm'), '--refdriver', '--no-smoke'], { ...env, XPU_SETUP_REFDRIVER_PROFILE: 'pvc' });
    expect(r.exitCode, r.stderr).toBe(0);
    const sh = await fs.readFile(path.join(prefix, 'env.sh'), 'utf8');
    expect(sh).toContain("export TRITON_INTEL_DEVICE_ARCH='pvc'\n");
    expect(sh).toMatch(/export TRITON_INTEL_DEVICE_EXTENSIONS='[^']*cl_intel_subgroup_matrix_multiply_accumulate[^']*cl_intel_subgroup_2d_block_io/);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.probe).toMatchObject({ arch: 'pvc', device: 'Intel(R) Data Center GPU Max 1550 (xpu-setup CPU reference driver)' });
    // The default profile has no architecture: the variables go away rather than keep a stale answer.
    const back = await runCli(['--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm'), '--refdriver', '--no-smoke'], env);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(await fs.readFile(path.join(prefix, 'env.sh'), 'utf8')).not.toContain('TRITON_INTEL_DEVICE_ARCH');
  });
});

describe('probe through each reference profile', () => {
  const profiles: [string, string, boolean, boolean][] = [
    ['pvc', 'pvc', true, true],
    ['bmg', 'bmg', true, true],
    ['dg2', 'dg2', true, false],
    ['lnl', 'lnl', true, true],
    ['mtl', 'mtl', false, false],
    ['arl_h', 'arl_h', true, false],
    ['ptl_h', 'ptl_h', true, true],
  ];
  it.each(profiles)('%s: architecture %s, DPAS %s, 2D block IO %s, each from the L0 structs', async (profile, arch, dpas, block2d) => {
    const r = await runCli(['probe', '--prefix', prefix, '--json'], { ...env, XPU_SETUP_REFDRIVER_PROFILE: profile });
    expect(r.exitCode, r.stderr).toBe(0);
    const dev = JSON.parse(r.stdout).devices[0];
    expect(dev.arch).toMatchObject({ name: arch, known: true, source: 'l0' });
    const feature = (k: string) => dev.features.find((f: { key: string }) => f.key === k);
    expect(feature('dpas')).toMatchObject({ value: dpas, source: 'l0' });
    expect(feature('block_2d_io')).toMatchObject({ value: block2d, source: 'l0' });
    expect(dev.name).toMatch(/\(xpu-setup CPU reference driver\)$/);
    expect(r.stderr).toMatch(/active Level Zero driver: the xpu-setup CPU reference driver/);
  });

  it('--format triton-env prints the variables Triton reads', async () => {
    const r = await runCli(['probe', '--prefix', prefix, '--format', 'triton-env'], { ...env, XPU_SETUP_REFDRIVER_PROFILE: 'bmg' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^TRITON_INTEL_DEVICE_ARCH=bmg\nTRITON_INTEL_DEVICE_EXTENSIONS="[^"]*cl_intel_subgroup_matrix_multiply_accumulate[^"]*cl_intel_subgroup_2d_block_io/);
  });
});

describe('smoke through the reference driver', () => {
  it('a kernel that computes a wrong value fails with the first mismatching index and values', async () => {
    const spv = path.join(REPO, 'native/kernels/vector_add_wrong.spv');
    const r = await runCli(['smoke', '--prefix', prefix], { ...env, XPU_SETUP_SMOKE_SPV: spv });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/first mismatch at index 37: got [\d.]+, expected [\d.]+ \(1 of 1024 wrong\)/);
  });

  it('a malformed SPIR-V module gives an error with the build log, not a crash', async () => {
    const r = await runCli(['smoke', '--prefix', prefix, '--json'], { ...env, XPU_SETUP_SMOKE_SPV: path.join(REPO, 'native/kernels/malformed.spv') });
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.error.code).toBe('SMOKE');
    expect(doc.error.message).toMatch(/zeModuleCreate returned .*MODULE_BUILD_FAILURE[\s\S]*build log:\n\s+invalid SPIR-V/);
  });
});

describe('doctor with the reference driver active', () => {
  it('says the stack works on that driver and names it', async () => {
    const r = await runCli(['doctor', '--prefix', prefix, '--smoke', '--json', '--check', 'probe,smoke'], env);
    const doc = JSON.parse(r.stdout);
    const probe = doc.checks.find((c: { id: string }) => c.id === 'probe');
    expect(probe.status).toBe('ok');
    expect(probe.message).toMatch(/the stack works on the CPU reference driver .*libze_xpu_setup_refdriver-[0-9a-f]+\.so/);
    expect(doc.checks.find((c: { id: string }) => c.id === 'smoke').status).toBe('ok');
    expect(r.exitCode).toBe(0);
  });
});

describe('build outputs in the receipt', () => {
  it('the driver and addon libraries are recorded; a run without --refdriver removes the driver it had built', async () => {
    const receiptOf = async () => JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    const before = await receiptOf();
    const driver = before.builds.refdriver.find((p: string) => p.endsWith('.so')) as string;
    expect(driver).toMatch(/^lib\/libze_xpu_setup_refdriver-[0-9a-f]+\.so$/);
    expect(before.builds.addon.some((p: string) => /^lib\/xpu-setup\/xpu_addon-[0-9a-f]+\.so$/.test(p))).toBe(true);
    expect(before.files.map((f: { path: string }) => f.path)).toContain(driver);
    const r = await runCli(['--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm'), '--no-smoke'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    const after = await receiptOf();
    expect(after.builds.refdriver).toBeUndefined();
    expect(after.files.map((f: { path: string }) => f.path)).not.toContain(driver);
    await expect(fs.access(path.join(prefix, driver))).rejects.toThrow();
    expect(await fs.readFile(path.join(prefix, 'env.sh'), 'utf8')).not.toContain('ZE_ENABLE_ALT_DRIVERS');
  });
});
