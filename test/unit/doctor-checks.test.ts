// Each doctor check against fixture machines: sysfs trees in temp dirs, scripted programs (fakes), real files.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/base/deps.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { renderHuman, runDoctor, type DoctorOptions, type DoctorReport } from '../../src/doctor/index.js';
import { reachHint } from '../../src/doctor/checks/network.js';
import { RECEIPT_NAME, type Receipt } from '../../src/records/receipt.js';
import { cliChild, fakeDeps, ok } from '../fixtures/detect/fake-deps.js';
import { ARC_A770_I915, ARC_B580_UNBOUND, buildTree, NO_GPU, NVIDIA_ONLY } from '../fixtures/detect/sysfs-trees.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-doctor-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fx = (p: string): string => readFileSync(path.join(__dirname, '../fixtures/detect', p), 'utf8');
let n = 0;
const newDir = (name: string): string => {
  const d = path.join(tmp, `${name}-${n++}`);
  mkdirSync(d, { recursive: true });
  return d;
};

async function run(deps: Deps, only: string[], opts: Partial<DoctorOptions> = {}): Promise<DoctorReport> {
  // How this process was started is vitest's worker: without it, hints name `npx xpu-setup` as for an unknown start.
  return runDoctor({ ...deps, started: undefined }, { only, prefix: opts.prefix ?? newDir('empty-prefix'), ...opts });
}
const get = (r: DoctorReport, id: string) => r.checks.find((c) => c.id === id)!;
const idScript = (groups: string) => (file: string) => (file === 'id' ? ok(`${groups}\n`) : undefined);

describe('GPU, kernel driver and device node (Linux)', () => {
  it('Arc A770 on i915 with a render node this user cannot open', async () => {
    const root = buildTree(ARC_A770_I915);
    const node = path.join(root, 'dev/dri/renderD128');
    const deps = fakeDeps({ env: { USER: 'alice' }, exec: idScript('alice'), denied: [node], gids: { [node]: 105 } });
    const r = await run(deps, ['gpu', 'kernel-driver', 'render-node'], { root });
    expect(get(r, 'gpu')).toMatchObject({ status: 'ok', message: 'Intel(R) Arc(tm) A770 Graphics (dg2, 8086:56a0) at 0000:03:00.0' });
    expect(get(r, 'kernel-driver')).toMatchObject({ status: 'ok', message: '0000:03:00.0 bound to i915' });
    expect(get(r, 'render-node')).toMatchObject({
      status: 'fail',
      message: `${node} (group render) cannot be opened: alice is not in the "render" group, so Level Zero sees no GPU (silently)`,
      fix: 'sudo usermod -aG render $USER   then log out and back in (a new login is needed for the group to apply)',
    });
    expect(r.summary.exit_code).toBe(1);
    rmSync(root, { recursive: true, force: true });
  });

  it('Battlemage with no driver bound and xe not loaded: modprobe, and the kernel it needs', async () => {
    const root = buildTree(ARC_B580_UNBOUND);
    const r = await run(fakeDeps({ exec: idScript('root') }), ['kernel-driver', 'render-node'], { root });
    expect(get(r, 'kernel-driver')).toMatchObject({
      status: 'fail',
      message: '0000:29:00.0 has no kernel driver bound and the xe module is not loaded',
      fix: 'sudo modprobe xe; if that fails, install a kernel with xe (Linux 6.12 or newer for bmg)',
    });
    expect(get(r, 'render-node')).toMatchObject({ status: 'fail', message: expect.stringMatching(/no \/dev\/dri\/renderD\* node/) });
    rmSync(root, { recursive: true, force: true });
  });

  it('only an NVIDIA GPU: fail and say what is there; the driver checks skip', async () => {
    const root = buildTree(NVIDIA_ONLY);
    const r = await run(fakeDeps({ exec: idScript('root') }), ['gpu', 'kernel-driver', 'render-node'], { root });
    expect(get(r, 'gpu')).toMatchObject({ status: 'fail', message: 'no Intel GPU found; display devices here: NVIDIA 10de:2684 (nvidia)' });
    expect(get(r, 'kernel-driver').status).toBe('skip');
    expect(get(r, 'render-node')).toMatchObject({ status: 'skip', message: expect.stringMatching(/^no Intel GPU \(render nodes here: /) });
    rmSync(root, { recursive: true, force: true });
  });

  it('no GPU, with the CPU reference driver selected: the GPU check says so and warns (exit 0, 1 with --strict), the GPU driver is not asked for, and the probe says the stack works on it', async () => {
    const root = buildTree(NO_GPU);
    const ref = '/opt/xpu/lib/libze_xpu_refdriver.so';
    // What `xpu-setup probe --json` prints for the reference device.
    const exec = cliChild({ probe: { ok: true, loader: { path: '/opt/xpu/lib/libze_loader.so.1' }, zeInit: 0, devices: [{ name: 'xpu-setup CPU reference device (PoCL)', type: 'cpu' }] } });
    const checks = ['gpu', 'kernel-driver', 'render-node', 'user-driver', 'probe'];
    const r = await run(fakeDeps({ env: { ZE_ENABLE_ALT_DRIVERS: ref }, exec }), checks, { root });
    expect(get(r, 'gpu')).toMatchObject({
      status: 'warn',
      message: `no Intel GPU found (no display device at all). ZE_ENABLE_ALT_DRIVERS (this environment) selects the CPU reference driver ${ref}, so the stack is judged on it; \`--smoke\` runs a kernel there`,
    });
    expect(get(r, 'gpu').fix).toBeUndefined();
    expect(get(r, 'user-driver')).toMatchObject({ status: 'skip', message: `not needed: no Intel GPU, and the CPU reference driver ${ref} is selected` });
    expect(get(r, 'probe')).toMatchObject({
      status: 'ok',
      message: `the stack works on the CPU reference driver ${ref} (environment), not on an Intel GPU: xpu-setup CPU reference device (PoCL) (cpu)`,
    });
    expect(r.summary.exit_code).toBe(0);
    const strict = await run(fakeDeps({ env: { ZE_ENABLE_ALT_DRIVERS: ref }, exec }), checks, { root, strict: true });
    expect(strict.summary.exit_code).toBe(1);
    // Without the reference driver, no GPU stays a failure, and the GPU driver is asked for.
    const plain = await run(fakeDeps(), ['gpu', 'user-driver'], { root });
    expect(get(plain, 'gpu').status).toBe('fail');
    expect(get(plain, 'user-driver').status).toBe('warn');
    expect(plain.summary.exit_code).toBe(1);
    rmSync(root, { recursive: true, force: true });
  });

  it('a probe that finds nothing fails with the loader and zeInit result', async () => {
    // The CLI's "no device" error keeps the probe report in its details.
    const report = { loader: { path: '/usr/lib/x86_64-linux-gnu/libze_loader.so.1' }, zeInit: 0x78000001, devices: [] };
    const exec = cliChild({ probe: { ok: false, error: { code: 'NO_DEVICE', message: 'no Level Zero driver', details: { report } } } });
    const r = await run(fakeDeps({ exec }), ['probe']);
    expect(get(r, 'probe')).toMatchObject({ status: 'fail', message: 'the loader /usr/lib/x86_64-linux-gnu/libze_loader.so.1 found no device (zeInit: ZE_RESULT_ERROR_UNINITIALIZED (0x78000001))' });
  });
});

describe('Windows (injected deps, platform win32)', () => {
  const store = 'C:\\Windows\\System32\\DriverStore\\FileRepository\\iigd_dch.inf_amd64_195935a835b82d59';
  const winDeps = (cim: string, files: string[]) =>
    fakeDeps({
      platform: 'win32',
      env: { SystemRoot: 'C:\\Windows', PATH: 'C:\\Windows\\System32' },
      exec: (file, args) => {
        if (file === 'powershell.exe' && args.at(-1)!.includes('Win32_VideoController')) return ok(fx(cim));
        // The load test's child process: this double says every DLL loads.
        if (file === process.execPath && args[0] === '-e') return ok('{"ok":true}\n');
        return undefined;
      },
      exists: (p) => files.includes(p),
      files: {},
    });

  it('an Arc with the current driver: GPU, driver, L0 driver DLL and System32 loader found', async () => {
    const deps = winDeps('windows/cim-arc-meteorlake.json', [`${store}\\ze_intel_gpu64.dll`, 'C:\\Windows\\System32\\ze_loader.dll']);
    const r = await run(deps, ['gpu', 'kernel-driver', 'render-node', 'user-driver', 'ze-loader'], { prefix: 'C:\\xpu' });
    expect(get(r, 'gpu')).toMatchObject({ status: 'ok', message: 'Intel(R) Arc(tm) Graphics (mtl, 8086:7d55)' });
    expect(get(r, 'kernel-driver')).toMatchObject({ status: 'ok', message: 'Intel(R) Arc(tm) Graphics (mtl, 8086:7d55): driver 32.0.101.5768' });
    expect(get(r, 'render-node').status).toBe('skip');
    expect(get(r, 'user-driver')).toMatchObject({ status: 'ok', message: `${store}\\ze_intel_gpu64.dll (driver 32.0.101.5768)` });
    expect(get(r, 'ze-loader')).toMatchObject({ status: 'ok', message: 'C:\\Windows\\System32\\ze_loader.dll via System32, loads' });
  });

  it('no LEVEL_ZERO_V1_SDK_PATH: a warning that says an INF-installed driver does not set it and Inductor needs it', async () => {
    const r = await run(winDeps('windows/cim-arc-meteorlake.json', []), ['sdk-path'], { prefix: 'C:\\xpu' });
    expect(get(r, 'sdk-path').status).toBe('warn');
    expect(get(r, 'sdk-path').message).toMatch(
      /^neither LEVEL_ZERO_V1_SDK_PATH nor ZE_PATH is set, so Triton relies on the compiler's default paths: the Intel GPU driver's full installer sets LEVEL_ZERO_V1_SDK_PATH, a driver installed from its INF \(Windows Update, Device Manager, the DriverStore\) does not \(Triton #5879\), and PyTorch Inductor's Windows build requires it; /,
    );
  });

  it('an Intel driver without the Level Zero DLL fails with the update fix', async () => {
    const r = await run(winDeps('windows/cim-uhd-and-nvidia.json', []), ['user-driver']);
    expect(get(r, 'user-driver')).toMatchObject({ status: 'fail', fix: expect.stringMatching(/install the current Intel graphics driver/) });
  });

  it('only NVIDIA: no Intel GPU', async () => {
    const r = await run(winDeps('windows/cim-nvidia-only.json', []), ['gpu']);
    expect(get(r, 'gpu')).toMatchObject({ status: 'fail', message: 'no Intel GPU found; display devices here: NVIDIA 10de:1e84 NVIDIA GeForce RTX 2070 SUPER' });
  });
});

describe('loaders and headers (real files, real load tests)', () => {
  const debianLoader = '/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0';
  const prefixWithLoader = (): string => {
    const p = newDir('prefix');
    mkdirSync(path.join(p, 'lib'));
    copyFileSync(debianLoader, path.join(p, 'lib/libze_loader.so.1.8.0'));
    symlinkSync('libze_loader.so.1.8.0', path.join(p, 'lib/libze_loader.so.1'));
    return p;
  };

  it('a prefix loader that is not on LD_LIBRARY_PATH is shadowed by the distro one: warn, source env.sh', async () => {
    const prefix = prefixWithLoader();
    const r = await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['ze-loader'], { prefix });
    const c = get(r, 'ze-loader');
    expect(c.status).toBe('warn');
    expect(c.message).toContain(`not the prefix's ${prefix}/lib/libze_loader.so.1`);
    // No env file in this prefix: the fix never names one; it installs, with the prefix.
    expect(c.fix).toBe(`run \`npx xpu-setup --prefix ${prefix}\`; then \`. ${prefix}/env.sh\` puts the prefix first on LD_LIBRARY_PATH`);
  });

  it('fix lines load the env file of the user\'s shell, quote the prefix, and repeat the channels the receipt records', async () => {
    const prefix = path.join(prefixWithLoader(), "it's here");
    mkdirSync(path.join(prefix, 'lib'), { recursive: true });
    copyFileSync(debianLoader, path.join(prefix, 'lib/libze_loader.so.1'));
    writeFileSync(path.join(prefix, 'env.sh'), '');
    writeFileSync(path.join(prefix, 'env.fish'), '');
    const q = (rest = '') => `'${(prefix + rest).replace("'", "'\\''")}'`;
    const sh = get(await run({ ...realDeps(), env: { PATH: process.env.PATH, SHELL: '/bin/bash' } }, ['ze-loader'], { prefix }), 'ze-loader');
    expect(sh.fix).toBe(`\`. ${q('/env.sh')}\` puts the prefix first on LD_LIBRARY_PATH`);
    const fish = get(await run({ ...realDeps(), env: { PATH: process.env.PATH, SHELL: '/usr/bin/fish' } }, ['ze-loader'], { prefix }), 'ze-loader');
    expect(fish.fix).toContain(`\`source ${q('/env.fish')}\``);

    const receipt = {
      schema: 1, prefix, files: [],
      components: [
        { name: 'level-zero', version: '1.8.12', source: 'conda https://mirror.example/conda-forge', notes: [] },
        { name: 'unified-runtime', version: '2025.2', source: 'pypi https://mirror.example/simple', notes: [] },
      ],
    } as unknown as Receipt;
    const headers = get(await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['headers'], { prefix, readReceipt: async () => receipt }), 'headers');
    expect(headers.fix).toBe(`run \`npx xpu-setup --prefix ${q()} --conda-channel https://mirror.example/conda-forge --index-url https://mirror.example/simple --require 'level-zero>=1.9'\` to install headers 1.9 or newer into the prefix; then \`. ${q('/env.sh')}\` puts them first`);
    // The prefix's own unified-runtime has no loader: installing it again would bring the same, so no such fix.
    const noUr = get(await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['ur'], { prefix, readReceipt: async () => receipt }), 'ur');
    expect(noUr).toMatchObject({ status: 'warn', message: expect.stringContaining("the prefix's unified-runtime has the adapters but no loader") });
    expect(noUr.fix).toBeUndefined();
    const noUrAtAll = get(await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['ur'], { prefix, readReceipt: async () => ({ ...receipt, components: receipt.components.slice(0, 1) }) }), 'ur');
    expect(noUrAtAll.fix).toBe(`run \`npx xpu-setup --prefix ${q()} --conda-channel https://mirror.example/conda-forge\` to install it into the prefix`);
    // A prefix set up for its GPU driver alone: the command that brings headers or UR names that component too.
    const request = { components: ['gpu-driver'], sources: ['conda'], indexes: { conda: ['https://mirror.example/conda-forge'] }, requires: [], refdriver: false };
    const driverOnly = { ...receipt, components: [{ name: 'gpu-driver', version: '26.18.38308.1', source: 'conda https://mirror.example/conda-forge', notes: [] }], request } as unknown as Receipt;
    const asked = (component: string) => `npx xpu-setup --prefix ${q()} --component gpu-driver,${component} --source conda --conda-channel https://mirror.example/conda-forge`;
    const old = get(await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['headers'], { prefix, readReceipt: async () => driverOnly }), 'headers');
    expect(old.fix).toContain(`run \`${asked('level-zero')} --require 'level-zero>=1.9'\` to install headers 1.9 or newer`);
    const ur = get(await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['ur'], { prefix, readReceipt: async () => driverOnly }), 'ur');
    expect(ur.fix).toBe(`run \`${asked('unified-runtime')}\` to install it into the prefix`);
  });

  it('fixes for what the last setup could not get come from what it saw: every source it did not reach, once reachable, or another; never that run again; said once', async () => {
    const prefix = prefixWithLoader();
    cpSync('/usr/include/level_zero', path.join(prefix, 'include/level_zero'), { recursive: true });
    writeFileSync(path.join(prefix, 'env.sh'), '');
    const unreached = 'conda https://conda.example/conda-forge: cannot reach https://conda.example/conda-forge/linux-64/repodata_shards.msgpack.zst (ENOTFOUND)';
    const pypi = 'pypi https://pypi.org/simple: cannot reach https://pypi.org/simple/intel-cmplr-lib-ur/ (ENOTFOUND)';
    const receipt = {
      schema: 1, prefix, files: [],
      components: [{ name: 'level-zero', version: '1.8.12', source: 'apt Debian GNU/Linux 12 (bookworm)', notes: [], belowFloor: { floor: ['level-zero>=1.9'], lacks: [], unreached: [unreached] } }],
      skipped: [{ name: 'unified-runtime', tried: [pypi, 'conda https://conda.example/intel: intel-cmplr-lib-ur not found'], unreached: [pypi] }],
    } as unknown as Receipt;
    const deps = { ...realDeps(), env: { PATH: process.env.PATH } };
    const report = await run(deps, ['headers', 'ur'], { prefix, readReceipt: async () => receipt });
    const headers = get(report, 'headers');
    // One run fetches every component again: the sentence names every source that run did not reach.
    expect(headers.fix).toBe(
      `not reached: conda https://conda.example/conda-forge (ENOTFOUND); pypi https://pypi.org/simple (ENOTFOUND). Once they are reachable (behind a proxy: HTTPS_PROXY): npx xpu-setup --prefix ${prefix} --refresh; ` +
        `or npx xpu-setup --prefix ${prefix} --conda-channel URL or --index-url URL (a mirror this machine reaches), or npx xpu-setup --prefix ${prefix} --from DIR (a bundle that \`xpu-setup bundle\` wrote where the index is reachable)`,
    );
    expect(headers.fix).not.toContain('--require');
    const ur = get(report, 'ur');
    // The message says what the sources it reached answered; the fix, shared with the headers, names those it did not.
    expect(ur.message).toMatch(/the last setup found no source for it \(conda https:\/\/conda\.example\/intel: intel-cmplr-lib-ur not found\)$/);
    expect(ur.fix).toBe(headers.fix);
    expect(ur.fix).not.toBe(`run \`npx xpu-setup --prefix ${prefix}\` to install it into the prefix`);
    const text = renderHuman(report, { color: false, verbose: false });
    expect(text.split('Once they are reachable').length, text).toBe(2);
    // Each sentence and each way on a line of its own: the command to paste is never broken.
    expect(text).toMatch(/^ {10}Once they are reachable \(behind a proxy: HTTPS_PROXY\): npx xpu-setup --prefix \S+ --refresh;$/m);
    expect(text).toContain('  ! Unified Runtime: no UR loader');
    expect(text).toMatch(/Unified Runtime: [^]*?\n {6}fix: as for Level Zero headers above\n/);
  });

  it('with the prefix first on LD_LIBRARY_PATH, the prefix loader wins and the distro one is named as shadowed', async () => {
    const prefix = prefixWithLoader();
    const r = await run({ ...realDeps(), env: { PATH: process.env.PATH, LD_LIBRARY_PATH: path.join(prefix, 'lib') } }, ['ze-loader'], { prefix });
    const c = get(r, 'ze-loader');
    expect(c.status).toBe('ok');
    expect(c.message).toMatch(new RegExp(`^${prefix}/lib/libze_loader.so.1 -> .*1\\.8\\.0 \\(file name\\) via LD_LIBRARY_PATH, loads; also on the search path, shadowed: .*1\\.8\\.12-1 \\(dpkg libze1\\)`));
  });

  it('headers in the prefix newer than the loader programs get: warn with both versions', async () => {
    const prefix = newDir('prefix-headers');
    mkdirSync(path.join(prefix, 'include/level_zero'), { recursive: true });
    writeFileSync(path.join(prefix, 'include/level_zero/ze_api.h'), fx('headers/ze_api-1.20.6.h'));
    const receipt = { schema: 1, components: [{ name: 'level-zero', version: '1.20.6', source: 'apt', notes: [] }], files: [], prefix } as unknown as Receipt;
    const r = await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['headers'], { prefix, readReceipt: async () => receipt });
    expect(get(r, 'headers')).toMatchObject({
      status: 'warn',
      message: `${prefix}/include/level_zero/ze_api.h (prefix): API 1.12, 1.20.6 from receipt; headers 1.20.6 (receipt) are newer than the loader 1.8.12-1 (dpkg libze1): code built against them can call functions that loader does not export`,
    });
  });

  it('LEVEL_ZERO_V1_SDK_PATH pointing at a directory without headers fails', async () => {
    const sdk = newDir('sdk');
    const r = await run(fakeDeps({ env: { LEVEL_ZERO_V1_SDK_PATH: sdk } }), ['sdk-path']);
    expect(get(r, 'sdk-path')).toMatchObject({ status: 'fail', message: `LEVEL_ZERO_V1_SDK_PATH=${sdk} has no ${sdk}/include/level_zero/ze_api.h and no ${sdk}/lib/libze_loader.so` });
  });
});

describe('fix lines change something', () => {
  const urDouble = path.join(__dirname, '../fixtures/ur-double/ur_test_double.c');
  const cc = (args: string[]) => execFileSync('cc', args, { stdio: 'pipe' });

  it('headers too old for Triton: the fix asks for level-zero>=1.9 instead of the recorded request\'s lower floor', async () => {
    const prefix = newDir('prefix-old-headers');
    mkdirSync(path.join(prefix, 'include/level_zero'), { recursive: true });
    copyFileSync('/usr/include/level_zero/ze_api.h', path.join(prefix, 'include/level_zero/ze_api.h'));
    writeFileSync(path.join(prefix, 'env.sh'), '');
    const receipt = {
      schema: 1, prefix, files: [],
      components: [{ name: 'level-zero', version: '1.8.12', source: 'conda https://mirror.example/bookworm', notes: [] }],
      request: { components: [], sources: [], indexes: { conda: ['https://mirror.example/bookworm'] }, requires: ['level-zero>=1.8', 'unified-runtime>=2025'], refdriver: true },
    } as unknown as Receipt;
    const r = await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['headers'], { prefix, readReceipt: async () => receipt });
    expect(get(r, 'headers').fix).toBe(
      `run \`npx xpu-setup --prefix ${prefix} --conda-channel https://mirror.example/bookworm --require 'unified-runtime>=2025' --refdriver --require 'level-zero>=1.9'\` to install headers 1.9 or newer into the prefix; then \`. ${prefix}/env.sh\` puts them first`,
    );
  });

  it('a prefix that does not exist: whole sentences, no nested parentheses, no "install first" spliced into another hint', async () => {
    const prefix = path.join(tmp, 'never-made');
    const r = await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['prefix', 'headers', 'sdk-path', 'ze-loader'], { prefix });
    expect(get(r, 'prefix')).toMatchObject({ status: 'fail', message: `${prefix} does not exist, so nothing is installed there`, fix: `run \`npx xpu-setup --prefix ${prefix}\` to install into it` });
    expect(get(r, 'sdk-path').message).toBe(
      `neither LEVEL_ZERO_V1_SDK_PATH nor ZE_PATH is set, so Triton relies on the compiler's default paths; run \`npx xpu-setup --prefix ${prefix}\`; then \`. ${prefix}/env.sh\` sets both`,
    );
    for (const c of r.checks) {
      const text = `${c.message} ${c.fix ?? ''}`;
      expect(text).not.toMatch(/\([^()]*\(/);
      expect(text).not.toContain('install the prefix first');
    }
  });

  it('a receipt that cannot be read: setup would refuse the prefix, so the fix moves it aside first', async () => {
    const prefix = newDir('prefix-bad-receipt');
    writeFileSync(path.join(prefix, RECEIPT_NAME), '{ not json');
    const c = get(await run({ ...realDeps(), env: { PATH: process.env.PATH } }, ['prefix'], { prefix }), 'prefix');
    expect(c.status).toBe('fail');
    expect(c.fix).toBe(`setup does not replace a prefix whose receipt it cannot read: move it aside (\`mv ${prefix} ${prefix}.damaged\`), then run \`npx xpu-setup --prefix ${prefix}\``);
  });

  it('a directory without a receipt: an empty one is installed into; one with other files is not, and the fix says so', async () => {
    const empty = newDir('prefix-empty');
    const deps = { ...realDeps(), env: { PATH: process.env.PATH } };
    expect(get(await run(deps, ['prefix'], { prefix: empty }), 'prefix').fix).toBe(`run \`npx xpu-setup --prefix ${empty}\``);
    const full = newDir('prefix-full');
    writeFileSync(path.join(full, 'notes.txt'), 'mine');
    expect(get(await run(deps, ['prefix'], { prefix: full }), 'prefix').fix).toBe('setup installs only into an empty or new directory: name another one with --prefix, or empty this one');
  });

  it('UR adapters that load without libumf need none; one that links it and cannot find it is named, with its fix', async () => {
    const prefix = newDir('prefix-ur');
    const lib = path.join(prefix, 'lib');
    mkdirSync(lib);
    cc(['-shared', '-fPIC', '-o', path.join(lib, 'libur_loader.so.0'), urDouble]);
    for (const a of ['level_zero', 'opencl']) cc(['-shared', '-fPIC', '-DXPU_SETUP_UR_ADAPTER_STUB', '-o', path.join(lib, `libur_adapter_${a}.so.0`), urDouble]);
    const deps = { ...realDeps(), env: { PATH: process.env.PATH } };
    const good = get(await run(deps, ['ur'], { prefix }), 'ur');
    expect(good).toMatchObject({ status: 'ok', message: expect.stringMatching(/all load$/) });

    // An adapter linked against a libumf.so.1 that is then removed, as a wheel without its umf dependency leaves it.
    const umfDir = newDir('umf');
    writeFileSync(path.join(umfDir, 'umf.c'), 'int umfInit(void) { return 0; }\n');
    cc(['-shared', '-fPIC', '-Wl,-soname,libumf.so.1', '-o', path.join(umfDir, 'libumf.so.1'), path.join(umfDir, 'umf.c')]);
    writeFileSync(path.join(umfDir, 'adapter.c'), 'int umfInit(void); int urAdapterGet(void) { return umfInit(); }\n');
    cc(['-shared', '-fPIC', '-o', path.join(lib, 'libur_adapter_level_zero.so.0'), path.join(umfDir, 'adapter.c'), path.join(umfDir, 'libumf.so.1')]);
    unlinkSync(path.join(umfDir, 'libumf.so.1'));
    const bad = get(await run(deps, ['ur'], { prefix }), 'ur');
    expect(bad.status).toBe('warn');
    expect(bad.message).toContain('libur_adapter_level_zero.so.0 does not load');
    expect(bad.message).toContain('missing libumf.so.1 (the Level Zero adapters link it)');
    expect(bad.fix).toContain('libumf.so.1');
    expect(bad.fix).not.toContain('xpu-setup --prefix');
  });
});

describe('environment, compiler, receipt, network', () => {
  it('fails the trailing-comma trap and warns about an ALT_DRIVERS path that does not exist', async () => {
    const r = await run(fakeDeps({ env: { ZE_ENABLE_ALT_DRIVERS: '/nowhere/libze_other.so,', ZE_AFFINITY_MASK: '0' } }), ['env']);
    const c = get(r, 'env');
    expect(c.status).toBe('fail');
    expect(c.message).toContain('ZE_ENABLE_ALT_DRIVERS="/nowhere/libze_other.so," has an empty entry');
    expect(c.message).toContain('entry /nowhere/libze_other.so does not exist');
    expect(c.message).toContain('ZE_AFFINITY_MASK="0" only devices 0 are visible');
    expect(c.fix).toContain('export ZE_ENABLE_ALT_DRIVERS=/nowhere/libze_other.so');
  });

  it('says a variable that is both exported and in the prefix\'s env files once, not twice', async () => {
    const prefix = newDir('env-twice');
    const driver = path.join(prefix, 'lib', 'libze_xpu_setup_refdriver.so');
    mkdirSync(path.dirname(driver));
    writeFileSync(driver, '');
    const receipt = { schema: 1, components: [], files: [], prefix, extraEnv: { ZE_ENABLE_ALT_DRIVERS: driver } } as unknown as Receipt;
    const r = await run(fakeDeps({ env: { ZE_ENABLE_ALT_DRIVERS: driver } }), ['env'], { prefix, readReceipt: async () => receipt });
    const c = get(r, 'env');
    expect(c.status).toBe('ok');
    expect(c.message.split('selects the CPU reference driver').length).toBe(2);
  });

  it('no compiler: warn, with every attempt in the details', async () => {
    // A machine with an empty PATH and no CC: every GNU name is looked for and missed.
    const r = await run(fakeDeps({ env: { CC: 'gcc-13' } }), ['compiler']);
    expect(get(r, 'compiler')).toMatchObject({ status: 'warn', details: { tried: ['CC (gcc-13): not found (not on PATH)', 'cc (cc): not found (not on PATH)', 'gcc (gcc): not found (not on PATH)', 'clang (clang): not found (not on PATH)', 'icx (icx): not found (not on PATH)'] } });
  });

  it('receipt: names changed and missing files; all matching is ok', async () => {
    const prefix = newDir('receipt-prefix');
    mkdirSync(path.join(prefix, 'lib'));
    const files = { 'lib/a.so': 'alpha', 'lib/b.so': 'beta', 'lib/c.so': 'gamma' };
    for (const [p, c] of Object.entries(files)) writeFileSync(path.join(prefix, p), c);
    symlinkSync('a.so', path.join(prefix, 'lib/a.so.1'));
    const receipt = {
      schema: 1,
      prefix,
      components: [{ name: 'level-zero', version: '1.28.2', source: 'conda', notes: [] }],
      files: [
        ...Object.entries(files).map(([p, c]) => ({ path: p, sha256: createHash('sha256').update(c).digest('hex'), size: c.length })),
        { path: 'lib/a.so.1', sha256: '', size: 0, link: 'a.so' },
      ],
    };
    writeFileSync(path.join(prefix, RECEIPT_NAME), JSON.stringify(receipt));
    const good = await run(fakeDeps(), ['prefix'], { prefix });
    expect(get(good, 'prefix')).toMatchObject({ status: 'ok', message: '4 files match the receipt: level-zero 1.28.2 from conda' });
    writeFileSync(path.join(prefix, 'lib/b.so'), 'tampered');
    unlinkSync(path.join(prefix, 'lib/c.so'));
    const bad = await run(fakeDeps(), ['prefix'], { prefix });
    expect(get(bad, 'prefix')).toMatchObject({ status: 'fail', message: '2 of 4 files differ from the receipt; changed: lib/b.so; missing: lib/c.so' });
    // The fix repeats the recorded request, flags spelled out; one an earlier xpu-setup wrote (its channels a field of their own) too.
    const request = { components: ['level-zero'], sources: [], condaChannels: ['https://c.example/ch'], requires: ['level-zero>=1.9'], refdriver: false };
    writeFileSync(path.join(prefix, RECEIPT_NAME), JSON.stringify({ ...receipt, request }));
    const again = await run(fakeDeps(), ['prefix'], { prefix });
    expect(get(again, 'prefix').fix).toMatch(/^run `(npx )?xpu-setup --prefix \S+ --component level-zero --conda-channel https:\/\/c\.example\/ch --require 'level-zero>=1\.9'` to restore them$/);
  });

  it('receipt: files whose size and mtime match are not read; a file rewritten with another size is named', async () => {
    const prefix = newDir('receipt-mtime');
    mkdirSync(path.join(prefix, 'lib'));
    writeFileSync(path.join(prefix, 'lib/a.so'), 'alpha');
    const st = statSync(path.join(prefix, 'lib/a.so'));
    const receipt = {
      schema: 1, prefix, components: [{ name: 'level-zero', version: '1.28.2', source: 'conda', notes: [] }],
      files: [{ path: 'lib/a.so', sha256: 'not the hash: only size and mtime are compared', size: 5, mtimeMs: st.mtimeMs }],
    };
    writeFileSync(path.join(prefix, RECEIPT_NAME), JSON.stringify(receipt));
    const hashed: string[] = [];
    const deps = { ...fakeDeps(), sha256: async (f: string) => (hashed.push(f), undefined) };
    expect(get(await run(deps, ['prefix'], { prefix }), 'prefix')).toMatchObject({ status: 'ok', message: '1 files match the receipt: level-zero 1.28.2 from conda' });
    expect(hashed).toEqual([]);
    writeFileSync(path.join(prefix, 'lib/a.so'), 'alphabet');
    expect(get(await run(deps, ['prefix'], { prefix }), 'prefix')).toMatchObject({ status: 'fail', message: '1 of 1 files differ from the receipt; changed: lib/a.so' });
  });

  it('names the previous prefix a run killed mid-swap left beside it, and a staging tree a killed run left', async () => {
    const parent = newDir('killed-swap');
    const prefix = path.join(parent, 'prefix');
    mkdirSync(`${prefix}.xpu-setup-old-1a2b3c4d`);
    const gone = get(await run(fakeDeps(), ['prefix'], { prefix }), 'prefix');
    expect(gone).toMatchObject({
      status: 'fail',
      message: `${prefix} does not exist, so nothing is installed there; a run killed while swapping left the previous prefix beside it: ${prefix}.xpu-setup-old-1a2b3c4d`,
      fix: expect.stringMatching(/: it puts the previous prefix back before anything else$/),
    });
    mkdirSync(path.join(parent, '.prefix.xpu-setup-staging-XYZ'));
    const both = get(await run(fakeDeps(), ['prefix'], { prefix }), 'prefix');
    expect(both.message).toMatch(/; a killed run left its staging tree: .*\.prefix\.xpu-setup-staging-XYZ$/);
  });

  it('an explicit prefix without a receipt fails; the default prefix without one is skipped', async () => {
    const r = await run(fakeDeps(), ['prefix']);
    expect(get(r, 'prefix').status).toBe('fail');
    const unset = await runDoctor(fakeDeps({ env: { XPU_SETUP_PREFIX: newDir('default-prefix') } }), { only: ['prefix'] });
    expect(get(unset, 'prefix')).toMatchObject({ status: 'skip', message: expect.stringMatching(/^nothing installed in the default prefix /) });
  });

  it('warns when <prefix>/lib on LD_LIBRARY_PATH shadows the UR loader of the Python environment PyTorch uses', async () => {
    const prefix = newDir('shadow-prefix');
    const venv = newDir('venv');
    for (const d of [prefix, venv]) {
      mkdirSync(path.join(d, 'lib'), { recursive: true });
      writeFileSync(path.join(d, 'lib', 'libur_loader.so.0'), d);
    }
    const python = (file: string) => (file === 'python3' ? ok(`${venv}\ntorch\n`) : undefined);
    const on = await run(fakeDeps({ env: { LD_LIBRARY_PATH: `${prefix}/lib:/usr/local/lib` }, exec: python }), ['env'], { prefix });
    expect(get(on, 'env')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining(`so PyTorch in the Python environment ${venv} loads the prefix's libur_loader.so.0 instead of its own ${venv}/lib/libur_loader.so.0`),
      fix: `load the prefix for building only: \`eval "$(npx xpu-setup env --compilers --prefix ${prefix})"\`, or take ${prefix}/lib off LD_LIBRARY_PATH`,
    });
    const off = await run(fakeDeps({ env: { LD_LIBRARY_PATH: '/usr/local/lib' }, exec: python }), ['env'], { prefix });
    expect(get(off, 'env').status).toBe('ok');
  });

  it('checks the indexes the receipt records (a mirror), not the public defaults', async () => {
    const asked: string[] = [];
    const fakeReach: Deps['reach'] = async (url) => {
      asked.push(url);
      return { ok: true, status: 200 };
    };
    const receipt = {
      schema: 1, files: [], archives: [],
      components: [
        { name: 'level-zero', version: '1.28', source: 'conda http://mirror.lan/conda-forge', notes: [] },
        { name: 'unified-runtime', version: '2025.2', source: 'pypi http://mirror.lan/simple', notes: [] },
      ],
    } as unknown as Receipt;
    const r = await run(fakeDeps({ reach: fakeReach }), ['network'], {
      indexes: async () => ['https://conda.anaconda.org/conda-forge/'],
      readReceipt: async () => receipt,
    });
    expect(asked).toEqual(['http://mirror.lan/conda-forge/', 'http://mirror.lan/simple/']);
    expect(get(r, 'network')).toMatchObject({ status: 'ok', message: '2 reachable (the indexes the prefix was installed from): http://mirror.lan/conda-forge/, http://mirror.lan/simple/' });
  });

  it('unreachable indexes warn with proxy and TLS hints', async () => {
    const fakeReach: Deps['reach'] = async (url) =>
      url.includes('conda')
        ? { ok: false, error: { message: `cannot reach ${url} (ENOTFOUND)`, code: 'NETWORK', details: { code: 'ENOTFOUND' } } }
        : { ok: true, status: 200 };
    const r = await run(fakeDeps({ reach: fakeReach }), ['network'], { indexes: async () => ['https://conda.anaconda.org/conda-forge/', 'https://pypi.org/simple/'] });
    expect(get(r, 'network')).toMatchObject({
      status: 'warn',
      message: 'cannot reach https://conda.anaconda.org/conda-forge/ (ENOTFOUND): setup cannot download from there',
      fix: 'DNS lookup failed: offline, or a network that only allows a proxy (set HTTPS_PROXY=http://host:port)',
    });
    expect(reachHint({ ok: false, error: { message: 'x', details: { code: 'SELF_SIGNED_CERT_IN_CHAIN' } } }, true)).toMatch(/NODE_EXTRA_CA_CERTS/);
    expect(reachHint({ ok: false, error: { message: 'x', details: { code: 'UND_ERR_CONNECT_TIMEOUT' } } }, true)).toMatch(/check HTTPS_PROXY and NO_PROXY/);
  });

  it('the probe and smoke checks start the CLI through deps.exec; with no network to ask, the network check skips', async () => {
    const r = await run(fakeDeps(), ['network', 'probe', 'smoke'], { indexes: async () => ['https://pypi.org/simple/'] });
    expect(r.checks.map((c) => c.status)).toEqual(['skip', 'fail', 'fail']);
    expect(get(r, 'probe').message).toMatch(/^the probe failed: could not run \S+xpu-setup\.js: spawn \S+ ENOENT$/);
    const smoke = await run(fakeDeps({ exec: cliChild({ smoke: { ok: true, kernel: 'vector_add', device: 'dev', deviceType: 'cpu', checked: 1024 } }) }), ['smoke']);
    expect(get(smoke, 'smoke')).toMatchObject({ status: 'ok', message: 'vector_add on dev (cpu): 1024 values correct' });
  });
});
