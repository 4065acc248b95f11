// The whole stack as a user runs it with no Intel GPU: setup --refdriver, then probe, smoke and doctor through
// the real loader -> the CPU reference driver -> PoCL.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEBIAN_12_STACK, REPO, runCli, type CliRun } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('refdriver', { require: DEBIAN_12_STACK });
let prefix: string;
let setup: CliRun;

beforeAll(async () => {
  prefix = fx.at('prefix');
  setup = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--refdriver', '--json']);
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
    // A shared object, not an empty or stale file: ELF magic, and it exports the loader's driver entry points.
    const head = (await fs.readFile(driver)).subarray(0, 4);
    expect([...head]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    const { stdout: symbols } = await execa('nm', ['-D', '--defined-only', driver]);
    expect(symbols).toMatch(/ T zeGetDriverProcAddrTable$/m);
    const sh = await fs.readFile(path.join(prefix, 'env.sh'), 'utf8');
    expect(sh).toContain(`export ZE_ENABLE_ALT_DRIVERS='${driver}'\n`);
    const json = JSON.parse(await fs.readFile(path.join(prefix, 'env.json'), 'utf8'));
    const alt = json.vars.find((v: { name: string }) => v.name === 'ZE_ENABLE_ALT_DRIVERS').value as string;
    expect(alt.endsWith(',')).toBe(false);
    expect(alt.includes(',,')).toBe(false);
  });

  it('a program built against the prefix and run with env.sh gets a device from the reference driver', async () => {
    const src = fx.at('count.c');
    await fs.writeFile(src, `#include <stdio.h>
#include <ze_api.h>
int main(void){ if (zeInit(0)) return 2; uint32_t n = 0; zeDriverGet(&n, NULL); ze_driver_handle_t d; n = 1; zeDriverGet(&n, &d);
uint32_t m = 0; zeDeviceGet(d, &m, NULL); printf("%u\\n", m); return 0; }
`);
    const exe = fx.at('count');
    const r = await execa('sh', ['-c', `. '${prefix}/env.sh' && cc '${src}' $(pkg-config --cflags --libs level-zero) -o '${exe}' && '${exe}'`], { env: { PATH: process.env.PATH! }, extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('1');
  });

  it('a second run is a no-op for the prefix and reuses the built driver and addon', async () => {
    const again = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--refdriver']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/is up to date/);
    expect(again.stderr).toMatch(/CPU reference driver up to date/);
    // Nothing the addon, probe and kernel depend on changed: the receipt's answer is reported, nothing is rebuilt.
    expect(again.stderr).toMatch(/build, probe and smoke: nothing they depend on changed since/);
    expect(again.stderr).not.toMatch(/runtime addon built/);
  });
});

describe('Triton variables from the probe', () => {
  it('setup writes TRITON_INTEL_DEVICE_ARCH and _EXTENSIONS of the probed device into the env files and the receipt', async () => {
    const r = await runCli(['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--refdriver', '--no-smoke'], { ...fx.env, XPU_SETUP_REFDRIVER_PROFILE: 'pvc' });
    expect(r.exitCode, r.stderr).toBe(0);
    const sh = await fs.readFile(path.join(prefix, 'env.sh'), 'utf8');
    expect(sh).toContain("export TRITON_INTEL_DEVICE_ARCH='pvc'\n");
    expect(sh).toMatch(/export TRITON_INTEL_DEVICE_EXTENSIONS='[^']*cl_intel_subgroup_matrix_multiply_accumulate[^']*cl_intel_subgroup_2d_block_io/);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.probe).toMatchObject({ arch: 'pvc', device: 'Intel(R) Data Center GPU Max 1550 (xpu-setup CPU reference driver)' });
    // The default profile has no architecture: the variables go away rather than keep a stale answer.
    const back = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--refdriver', '--no-smoke']);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(await fs.readFile(path.join(prefix, 'env.sh'), 'utf8')).not.toContain('TRITON_INTEL_DEVICE_ARCH');
  });
});

describe('probe through each reference profile', () => {
  // [profile, Triton arch, DPAS, 2D block IO, FP64]: FP64 as compute-runtime's hw_info reports it (DG2 has none).
  const profiles: [string, string, boolean, boolean, boolean][] = [
    ['pvc', 'pvc', true, true, true],
    ['bmg', 'bmg', true, true, true],
    ['dg2', 'dg2', true, false, false],
    ['lnl', 'lnl', true, true, true],
    ['mtl', 'mtl', false, false, true],
    ['arl_h', 'arl_h', true, false, true],
    ['ptl_h', 'ptl_h', true, true, true],
  ];
  it.each(profiles)('%s: architecture %s, DPAS %s, 2D block IO %s, FP64 %s, each from the L0 structs', async (profile, arch, dpas, block2d, fp64) => {
    const r = await runCli(['probe', '--prefix', prefix, '--json'], { ...fx.env, XPU_SETUP_REFDRIVER_PROFILE: profile });
    expect(r.exitCode, r.stderr).toBe(0);
    const dev = JSON.parse(r.stdout).devices[0];
    expect(dev.arch).toMatchObject({ name: arch, known: true, source: 'l0' });
    const feature = (k: string) => dev.features.find((f: { key: string }) => f.key === k);
    expect(feature('dpas')).toMatchObject({ value: dpas, source: 'l0' });
    expect(feature('block_2d_io')).toMatchObject({ value: block2d, source: 'l0' });
    expect(feature('fp64')).toMatchObject({ value: fp64, source: 'l0' });
    expect(feature('fp16')).toMatchObject({ value: true, source: 'l0' });
    expect(dev.name).toMatch(/\(xpu-setup CPU reference driver\)$/);
    expect(r.stderr).toMatch(/active Level Zero driver: the xpu-setup CPU reference driver/);
  });

  it('--format triton-env prints export lines a child of the shell sees (docs/commands.md, "Commands": probe)', async () => {
    const r = await runCli(['probe', '--prefix', prefix, '--format', 'triton-env'], { ...fx.env, XPU_SETUP_REFDRIVER_PROFILE: 'bmg' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^export TRITON_INTEL_DEVICE_ARCH='bmg'\nexport TRITON_INTEL_DEVICE_EXTENSIONS='[^']*cl_intel_subgroup_matrix_multiply_accumulate[^']*cl_intel_subgroup_2d_block_io/);
    const child = await execa('sh', ['-c', `eval "$1"; sh -c 'echo "$TRITON_INTEL_DEVICE_ARCH"'`, 'sh', r.stdout], { reject: false });
    expect(child.stdout).toBe('bmg');
    // And which of them the active Python's Triton reads.
    expect(r.stdout).toMatch(/^# (no Triton in the active Python; Triton 3\.5\.0 or newer reads both variables|Triton \S+ .*)$/m);
  });

  it('--format triton-env follows $SHELL: fish gets set -gx lines, and a stale variable is cleared', async () => {
    const r = await runCli(['probe', '--prefix', prefix, '--format', 'triton-env'], { ...fx.env, SHELL: '/usr/bin/fish', XPU_SETUP_REFDRIVER_PROFILE: 'bmg' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^set -gx TRITON_INTEL_DEVICE_ARCH 'bmg'$/m);
    const child = await execa('fish', ['-c', `${r.stdout}\nsh -c 'echo "$TRITON_INTEL_DEVICE_ARCH"'`], { reject: false, env: { TRITON_INTEL_DEVICE_ARCH: 'pvc' } });
    expect(child.stdout).toBe('bmg');
    // The default (CPU) profile has no Triton architecture: an earlier value must not survive the eval.
    const cpu = await runCli(['probe', '--prefix', prefix, '--format', 'triton-env'], { ...fx.env, XPU_SETUP_REFDRIVER_PROFILE: 'default' });
    expect(cpu.exitCode, cpu.stderr).toBe(0);
    expect(cpu.stdout).toMatch(/^unset TRITON_INTEL_DEVICE_ARCH$/m);
    const cleared = await execa('sh', ['-c', `eval "$1"; echo "[$TRITON_INTEL_DEVICE_ARCH]"`, 'sh', cpu.stdout], { reject: false, env: { TRITON_INTEL_DEVICE_ARCH: 'pvc' } });
    expect(cleared.stdout).toBe('[]');
  });

  it('--format triton-env --shell github with no GITHUB_ENV says so, and says when there is nothing to write', async () => {
    const { GITHUB_ENV: _unset, ...noGithub } = fx.env;
    const bmg = await runCli(['probe', '--prefix', prefix, '--format', 'triton-env', '--shell', 'github'], { ...noGithub, XPU_SETUP_REFDRIVER_PROFILE: 'bmg' });
    expect(bmg.exitCode, bmg.stderr).toBe(0);
    expect(bmg.stderr).toContain('GITHUB_ENV is not set (this is not a GitHub Actions step): printing what would be appended to it');
    expect(bmg.stdout).toMatch(/^TRITON_INTEL_DEVICE_ARCH=bmg$/m);
    const cpu = await runCli(['probe', '--prefix', prefix, '--format', 'triton-env', '--shell', 'github'], { ...noGithub, XPU_SETUP_REFDRIVER_PROFILE: 'default' });
    expect(cpu.stderr).toMatch(/nothing to write: the probe gave Triton neither an architecture nor the extension list/);
  });

  it('--format triton-env --shell sh / dotenv: forms a child process sees', async () => {
    const bmg = { ...fx.env, XPU_SETUP_REFDRIVER_PROFILE: 'bmg' };
    const sh = await runCli(['probe', '--prefix', prefix, '--format', 'triton-env', '--shell', 'sh'], bmg);
    expect(sh.exitCode, sh.stderr).toBe(0);
    const child = await execa('sh', ['-c', `${sh.stdout}\nsh -c 'echo "$TRITON_INTEL_DEVICE_ARCH|$TRITON_INTEL_DEVICE_EXTENSIONS"'`], { reject: false });
    expect(child.stdout).toMatch(/^bmg\|.*cl_intel_subgroup_2d_block_io/);
    const dotenv = await runCli(['probe', '--prefix', prefix, '--format', 'triton-env', '--shell', 'dotenv'], bmg);
    expect(dotenv.stdout).toMatch(/^TRITON_INTEL_DEVICE_ARCH=bmg\nTRITON_INTEL_DEVICE_EXTENSIONS=cl_intel[^"'\n]*$/);
  });
});

describe('probe and smoke of the system\'s own Level Zero install', () => {
  // The system loader is Debian's libze1 (1.8.12); the driver is the prefix's reference driver, named explicitly
  // since --system does not read any prefix.
  const systemEnv = async (extra: Record<string, string> = {}) => {
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    return { ...fx.env, ZE_ENABLE_ALT_DRIVERS: receipt.extraEnv.ZE_ENABLE_ALT_DRIVERS as string, XPU_SETUP_REFDRIVER_PROFILE: 'pvc', ...extra };
  };

  it('--system lists the devices of the loader the dynamic linker finds, and says where it came from', async () => {
    const r = await runCli(['probe', '--system', '--json'], await systemEnv());
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.origin).toEqual({ kind: 'system', via: expect.stringMatching(/^(ld\.so\.cache|default dirs)$/) });
    expect(doc.loader.path).toMatch(/^\/(usr\/)?lib\/x86_64-linux-gnu\/libze_loader\.so\.1$/);
    expect(doc.devices.map((d: { id: string; arch: { name: string } }) => [d.id, d.arch.name])).toEqual([['0.0', 'pvc']]);
  });

  it('with no --prefix and no default prefix, probe uses the system loader and says so', async () => {
    const r = await runCli(['probe'], await systemEnv());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no xpu-setup prefix at .*: using the system's Level Zero loader/);
    expect(r.stdout).toMatch(/^\[level_zero:gpu\]\[level_zero:0\.0\] Intel\(R\) Data Center GPU Max 1550 .*\[pvc 12\.60\.7\]$/m);
  });

  it('honours ONEAPI_DEVICE_SELECTOR: level_zero:gpu keeps the device, level_zero:1 and opencl:* hide it', async () => {
    const keep = await runCli(['probe', '--system', '--json'], await systemEnv({ ONEAPI_DEVICE_SELECTOR: 'level_zero:gpu' }));
    expect(keep.exitCode, keep.stderr).toBe(0);
    expect(JSON.parse(keep.stdout).selection).toEqual({ deviceSelector: 'level_zero:gpu', hiddenBySelector: [] });
    for (const sel of ['level_zero:1', 'opencl:*', '!level_zero:0']) {
      const r = await runCli(['probe', '--system', '--json'], await systemEnv({ ONEAPI_DEVICE_SELECTOR: sel }));
      expect(r.exitCode, sel).toBe(1);
      const doc = JSON.parse(r.stdout);
      expect(doc.error.code).toBe('NO_DEVICE');
      expect(doc.error.message).toContain(`ONEAPI_DEVICE_SELECTOR=${sel}`);
    }
  });

  it('honours ZE_AFFINITY_MASK through the driver: 1 hides device 0, 0 keeps it', async () => {
    const hidden = await runCli(['probe', '--system', '--json'], await systemEnv({ ZE_AFFINITY_MASK: '1' }));
    expect(hidden.exitCode).toBe(1);
    expect(JSON.parse(hidden.stdout).error.message).toMatch(/no devices \(with ZE_AFFINITY_MASK=1\)/);
    const kept = await runCli(['probe', '--system', '--json'], await systemEnv({ ZE_AFFINITY_MASK: '0' }));
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout).devices).toHaveLength(1);
  });

  it('--device picks one device by id or index and names the ones there are when it does not exist', async () => {
    const byId = await runCli(['probe', '--system', '--device', '0.0', '--format', 'triton-env'], await systemEnv());
    expect(byId.exitCode, byId.stderr).toBe(0);
    expect(byId.stdout.split('\n')[0]).toBe("export TRITON_INTEL_DEVICE_ARCH='pvc'");
    const missing = await runCli(['probe', '--system', '--device', '0.1', '--json'], await systemEnv());
    expect(missing.exitCode).toBe(1);
    const err = JSON.parse(missing.stdout).error;
    expect(err.message).toBe('no Level Zero device "0.1"');
    expect(err.hints[0]).toBe('devices: 0.0 (index 0)');
  });

  it('smoke --system --device 0 runs the kernel on that device and checks every value', async () => {
    const r = await runCli(['smoke', '--system', '--device', '0', '--json'], await systemEnv());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, deviceId: '0.0', deviceIndex: 0, checked: 1024, elements: 1024 });
  });

  it('--format pytorch prints PyTorch\'s values: the int64 SYCL architecture and UR\'s platform name', async () => {
    const r = await runCli(['probe', '--system', '--format', 'pytorch'], await systemEnv());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/"architecture": 13136561920,/);
    const p = JSON.parse(r.stdout)[0];
    expect(p).toMatchObject({ platform_name: 'Intel(R) oneAPI Unified Runtime over Level-Zero', version: '12.60.7', has_fp64: true, has_fp16: true, has_subgroup_2d_block_io: true });
    expect(p.driver_version).toBe('1.17.39395+13');
    // With no Unified Runtime here, PyTorch would enumerate nothing: said, beside the values it would report.
    expect(r.stderr).toMatch(/warning: PyTorch XPU would see no device here: no Unified Runtime loader was found/);
  });
});

describe('smoke through the reference driver', () => {
  it('a kernel that computes a wrong value fails with the first mismatching index and values', async () => {
    const spv = path.join(REPO, 'native/kernels/vector_add_wrong.spv');
    const r = await runCli(['smoke', '--prefix', prefix], { ...fx.env, XPU_SETUP_SMOKE_SPV: spv });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/first mismatch at index 37: got [\d.]+, expected [\d.]+ \(1 of 1024 wrong\)/);
  });

  it('a malformed SPIR-V module gives an error with the build log, not a crash', async () => {
    const r = await runCli(['smoke', '--prefix', prefix, '--json'], { ...fx.env, XPU_SETUP_SMOKE_SPV: path.join(REPO, 'native/kernels/malformed.spv') });
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.error.code).toBe('SMOKE');
    expect(doc.error.message).toMatch(/zeModuleCreate returned .*MODULE_BUILD_FAILURE[\s\S]*build log:\n\s+invalid SPIR-V/);
  });
});

describe('doctor with the reference driver active', () => {
  it('says the stack works on that driver and names it', async () => {
    const r = await fx.run(['doctor', '--prefix', prefix, '--smoke', '--json', '--check', 'probe,smoke']);
    const doc = JSON.parse(r.stdout);
    const probe = doc.checks.find((c: { id: string }) => c.id === 'probe');
    expect(probe.status).toBe('ok');
    expect(probe.message).toMatch(/the stack works on the CPU reference driver .*libze_xpu_setup_refdriver-[0-9a-f]+\.so/);
    expect(doc.checks.find((c: { id: string }) => c.id === 'smoke').status).toBe('ok');
    expect(r.exitCode).toBe(0);
  });

  it('the README\'s no-GPU path: every check with --smoke exits 0, no Intel GPU is a warning naming the driver, --strict exits 1', async () => {
    const r = await fx.run(['doctor', '--prefix', prefix, '--smoke', '--json']);
    const doc = JSON.parse(r.stdout);
    const failed = doc.checks.filter((c: { status: string }) => c.status === 'fail' || c.status === 'error');
    expect(failed, r.stdout).toEqual([]);
    expect(r.exitCode).toBe(0);
    const gpu = doc.checks.find((c: { id: string }) => c.id === 'gpu');
    expect(gpu.status).toBe('warn');
    expect(gpu.message).toMatch(/selects the CPU reference driver .*libze_xpu_setup_refdriver-[0-9a-f]+\.so, so the stack is judged on it/);
    expect(doc.checks.find((c: { id: string }) => c.id === 'user-driver').status).toBe('skip');
    const strict = await fx.run(['doctor', '--prefix', prefix, '--strict', '--quiet']);
    expect(strict.exitCode).toBe(1);
  });

  it('warns when the Triton variables in the env files do not match the live device, and agrees when they do', async () => {
    // By now the env files hold no Triton variables (the last setup ran on the default profile, which has none).
    const pvc = await runCli(['doctor', '--prefix', prefix, '--json', '--check', 'triton-env'], { ...fx.env, XPU_SETUP_REFDRIVER_PROFILE: 'pvc' });
    const stale = JSON.parse(pvc.stdout).checks[0];
    expect(stale.status).toBe('warn');
    expect(stale.message).toMatch(/^TRITON_INTEL_DEVICE_ARCH is set neither in this shell nor in the env files, the device calls for pvc; TRITON_INTEL_DEVICE_EXTENSIONS \(set neither in this shell nor in the env files\): missing .*cl_intel_subgroup_2d_block_io/);
    expect(stale.fix).toMatch(/run `xpu-setup --prefix .*` again on this machine/);
    const same = await fx.run(['doctor', '--prefix', prefix, '--json', '--check', 'triton-env']);
    expect(JSON.parse(same.stdout).checks[0]).toMatchObject({ status: 'ok', message: expect.stringMatching(/^no Triton variables, and the device calls for none; /) });
    // A variable exported in the shell is what Triton reads, whatever the env files say.
    const exported = await runCli(['doctor', '--prefix', prefix, '--json', '--check', 'triton-env'], { ...fx.env, TRITON_INTEL_DEVICE_ARCH: 'bmg' });
    expect(JSON.parse(exported.stdout).checks[0]).toMatchObject({ status: 'warn', message: expect.stringMatching(/^TRITON_INTEL_DEVICE_ARCH is bmg exported in this shell, the device calls for none/) });
  });
});

describe('build outputs in the receipt', () => {
  it('a bare re-run of a --refdriver prefix keeps the driver and starts no program, not even the compiler (strace)', async () => {
    const args = ['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm')];
    // The first re-run records the answer for this environment; the second has nothing to do.
    const first = await fx.run(args);
    expect(first.exitCode, first.stderr).toBe(0);
    const log = fx.at('refdriver-execve.log');
    const r = await execa('strace', ['-f', '-qq', '-e', 'trace=execve', '-o', log, process.execPath, path.join(REPO, 'bin', 'xpu-setup.js'), ...args], { env: fx.env, extendEnv: false, reject: false });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stderr).toMatch(/is up to date/);
    expect(r.stderr).toMatch(/the active Level Zero device is the CPU reference driver .*libze_xpu_setup_refdriver-[0-9a-f]+\.so/);
    const execs = (await fs.readFile(log, 'utf8')).split('\n').filter((l) => /execve\(/.test(l));
    expect(execs).toEqual([expect.stringContaining(process.execPath)]);
  });

  it('the driver and addon libraries are recorded; a run with --no-refdriver removes the driver it had built', async () => {
    const receiptOf = async () => JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    const before = await receiptOf();
    const driver = before.builds.refdriver.find((p: string) => p.endsWith('.so')) as string;
    expect(driver).toMatch(/^lib\/libze_xpu_setup_refdriver-[0-9a-f]+\.so$/);
    expect(before.builds.addon.some((p: string) => /^lib\/xpu-setup\/xpu_addon-[0-9a-f]+\.so$/.test(p))).toBe(true);
    expect(before.files.map((f: { path: string }) => f.path)).toContain(driver);
    // The receipt remembers --refdriver: a bare re-run would build it again, so turning it off is said.
    const r = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-smoke', '--no-refdriver']);
    expect(r.exitCode, r.stderr).toBe(0);
    const after = await receiptOf();
    expect(after.builds.refdriver).toBeUndefined();
    expect(after.files.map((f: { path: string }) => f.path)).not.toContain(driver);
    await expect(fs.access(path.join(prefix, driver))).rejects.toThrow();
    expect(await fs.readFile(path.join(prefix, 'env.sh'), 'utf8')).not.toContain('ZE_ENABLE_ALT_DRIVERS');
  });
});
