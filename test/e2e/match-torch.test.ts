// --match-torch end to end: a real Python (Debian's python3, a venv or PYTHONPATH) with installed-distribution test
// doubles of torch XPU and Intel's runtime wheels; the plan pins UR, UMF and TCM to what that torch runs with.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installDists, intelRuntimeDists, makeVenv, SYSTEM_PYTHON, torchXpuDist } from '../support/python-env.js';
import { joined, runCli } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const TORCH_210 = { ur: '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' };
const TORCH_211 = { ur: '2025.3.2', umf: '1.0.3', tcmlib: '1.4.1' };
/** torch 2.13.0+xpu pins intel-cmplr-lib-ur 2026.0.0, whose Level Zero adapters need a loader >= 1.25. */
const TORCH_213 = { ur: '2026.0.0', umf: '1.1.0', tcmlib: '1.5.0' };

const fx = withFixtureRun('match-torch', { require: 'level-zero>=1.8' });
let venv: { root: string; python: string };

beforeAll(async () => {
  venv = await makeVenv(fx.at('venv'), [torchXpuDist('2.10.0+xpu', TORCH_210), ...intelRuntimeDists(TORCH_210)]);
});

const inVenv = (): Record<string, string> => ({ ...fx.env, VIRTUAL_ENV: venv.root, PATH: `${path.join(venv.root, 'bin')}:${fx.env.PATH}` });
const urOnly = (prefix: string): string[] => ['--component', 'unified-runtime', '--prefix', fx.at(prefix)];
type Plan = { components: { name: string; version: string; archives: { package: string; version: string }[] }[]; torch?: Record<string, unknown>; notes?: string[]; request?: Record<string, unknown> };
const urVersions = (plan: Plan): Record<string, string> =>
  Object.fromEntries(plan.components.find((c) => c.name === 'unified-runtime')!.archives.map((a) => [a.package, a.version]));

describe('--match-torch with the active virtual environment', () => {
  it('plan pins intel-cmplr-lib-ur, umf and tcmlib to the venv\'s versions and says which interpreter it read', async () => {
    const r = await runCli(['plan', '--match-torch', ...urOnly('p1')], inVenv());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`--match-torch: torch 2\\.10\\.0\\+xpu in ${venv.python.replace(/[.+]/g, '\\$&')} \\(Python 3\\.\\d+\\.\\d+\\), with intel-cmplr-lib-ur 2025\\.3\\.1, intel-sycl-rt 2025\\.3\\.1, umf 1\\.0\\.2, tcmlib 1\\.4\\.1: the prefix gets exactly these`),
    );
    expect(r.stdout).toContain('unified-runtime 2025.3.1 from pypi');
    // umf 1.1.0 and tcmlib 1.5.0 are newer and would be chosen without the match.
    expect(r.stdout).toMatch(/└ umf 1\.0\.2: .*\(required by intel-cmplr-lib-ur 2025\.3\.1: umf ==1\.0\.\*\)/);
    expect(r.stdout).toMatch(/└ tcmlib 1\.4\.1: .*\(required by umf 1\.0\.2: tcmlib >=1\.4\)/);
  });

  it('plan --json carries the interpreter, its torch and the pins, and the request records the flag', async () => {
    const r = await runCli(['plan', '--json', '--match-torch', ...urOnly('p2')], inVenv());
    expect(r.exitCode, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as Plan;
    expect(plan.torch).toMatchObject({
      python: venv.python,
      torch: '2.10.0+xpu',
      installed: { 'intel-cmplr-lib-ur': '2025.3.1', 'intel-sycl-rt': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' },
    });
    expect((plan.torch!.pins as { name: string; from: string }[]).every((p) => p.from === 'installed')).toBe(true);
    expect(urVersions(plan)).toEqual({ 'intel-cmplr-lib-ur': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' });
    expect(plan.request!.matchTorch).toEqual({});
  });

  it('a pin the closure cannot meet is an error naming both sides, before any download', async () => {
    // An environment whose umf does not fit its UR: intel-cmplr-lib-ur 2025.3.1 requires umf ==1.0.*.
    const broken = await makeVenv(fx.at('broken'), [torchXpuDist('2.10.0+xpu', TORCH_210), ...intelRuntimeDists({ ...TORCH_210, umf: '1.1.0' })]);
    const r = await fx.run(['plan', `--match-torch=${broken.python}`, ...urOnly('p3')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `error: cannot satisfy intel-cmplr-lib-ur 2025.3.1: umf ==1.0.* and --match-torch (torch 2.10.0+xpu in ${broken.python}): umf ==1.1.0: only umf 1.1.0, umf 1.0.3, umf 1.0.2, umf 0.11.0 can be had`,
    );
    expect(r.stderr).toContain(`hint: --match-torch (torch 2.10.0+xpu in ${broken.python}) read these versions: reinstall what its torch pins there, or plan without the match: --no-match-torch`);
    expect(r.stderr).not.toContain('--source');
  });
});

describe('--match-torch and the loader the matched UR needs', () => {
  let torch213: { root: string; python: string };
  beforeAll(async () => {
    torch213 = await makeVenv(fx.at('venv213'), [torchXpuDist('2.13.0+xpu', TORCH_213), ...intelRuntimeDists(TORCH_213)]);
  });
  const plan = (channel: 'bookworm' | 'newer', prefix: string, more: string[] = []) =>
    fx.run(['plan', '--json', `--match-torch=${torch213.python}`, '--prefix', fx.at(prefix), '--conda-channel', fx.index.condaChannelUrl(channel), ...more]);

  it('a torch whose UR is 2026 gets a loader >= 1.25 where a source has one, and the plan says why', async () => {
    // apt first: its 1.8.12 is the first choice, and the need sends the plan on to the channel's loader.
    const r = await plan('newer', 'p213a', ['--source', 'apt,pypi,conda']);
    expect(r.exitCode, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout) as { components: { name: string; version: string; notes: string[] }[] };
    expect(Object.fromEntries(p.components.map((c) => [c.name, c.version]))).toEqual({ 'level-zero': fx.index.fixtures.l0Versions.newer, 'unified-runtime': '2026.0.0' });
    expect(p.components.find((c) => c.name === 'level-zero')!.notes).toContainEqual(expect.stringMatching(/^level-zero [\d.]+: unified-runtime 2026\.0\.0 needs level-zero>=1\.25 \(its Level Zero adapters call zeDeviceSynchronize/));
  });

  it('over Debian 12\'s loader alone, the pinned UR 2026 is refused before any download, naming the pin and the way out', async () => {
    const r = await plan('bookworm', 'p213b');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`error: unified-runtime 2026.0.0 needs level-zero >=1.25 (its Level Zero adapters call zeDeviceSynchronize and zeCommandListAppendLaunchKernelWithArguments, which the loader exports from 1.25.0 on); no reachable source has one`);
    expect(r.stderr).toContain(`hint: --match-torch (torch 2.13.0+xpu in ${torch213.python}) pins unified-runtime 2026.0.0; plan without the match: --no-match-torch`);
    expect(r.stderr).toContain('hint: nothing was downloaded');
    expect(fx.index.requests.filter((q) => /\.(whl|conda)$/.test(q.path) && q.path.includes('2026.0.0'))).toEqual([]);
  });
});

describe('--match-torch=PYTHON with PYTHONPATH', () => {
  it('a torch with none of the runtime packages beside it is matched by its release\'s pins, and the plan says so', async () => {
    const site = fx.at('pythonpath');
    await installDists(site, [torchXpuDist('2.11.0+xpu', TORCH_211)]);
    const r = await runCli(['plan', '--json', `--match-torch=${SYSTEM_PYTHON}`, ...urOnly('p4')], { ...fx.env, PYTHONPATH: site });
    expect(r.exitCode, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as Plan;
    expect(plan.torch).toMatchObject({ python: SYSTEM_PYTHON, torch: '2.11.0+xpu', installed: {} });
    expect((plan.torch!.notes as string[])[0]).toMatch(
      /^torch 2\.11\.0\+xpu in \/usr\/bin\/python3 \(Python 3\.\d+\.\d+\), but none of intel-cmplr-lib-ur, intel-sycl-rt, umf, tcmlib installed there \(a torch built against a system oneAPI\?\): using what torch 2\.11 wheels pin: intel-cmplr-lib-ur 2025\.3\.2, intel-sycl-rt 2025\.3\.2, umf 1\.0\.3, tcmlib 1\.4\.1$/,
    );
    expect(urVersions(plan)).toEqual({ 'intel-cmplr-lib-ur': '2025.3.2', umf: '1.0.3', tcmlib: '1.4.1' });
  });

  it('an interpreter with neither torch nor the runtime packages is an error that names it and what to do', async () => {
    const r = await fx.run(['plan', `--match-torch=${SYSTEM_PYTHON}`, ...urOnly('p5')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/error: --match-torch: \/usr\/bin\/python3 \(Python 3\.\d+\.\d+\) has neither torch nor any of intel-cmplr-lib-ur, intel-sycl-rt, umf, tcmlib installed/);
    expect(r.stderr).toContain('--match-torch=/path/to/venv/bin/python');
  });
});

describe('the request remembers --match-torch', () => {
  const prefix = () => fx.at('prefix');
  const run = (args: string[], env = inVenv()) =>
    runCli([...args, '--prefix', prefix(), '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('newer'), '--no-probe'], env);

  it('setup records it; a bare re-run reads the environment again and follows its torch; --no-match-torch forgets it', async () => {
    const first = await run(['--match-torch']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(joined(first.stderr)).toMatch(/--match-torch: torch 2\.10\.0\+xpu in .*: the prefix gets exactly these/);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix(), 'xpu-setup.receipt.json'), 'utf8')) as { request: Record<string, unknown>; archives: { package: string; version: string }[] };
    expect(receipt.request.matchTorch).toEqual({});
    expect(receipt.archives.filter((a) => ['intel-cmplr-lib-ur', 'umf', 'tcmlib'].includes(a.package)).map((a) => `${a.package} ${a.version}`).sort()).toEqual([
      'intel-cmplr-lib-ur 2025.3.1',
      'tcmlib 1.4.1',
      'umf 1.0.2',
    ]);

    // The user moves the venv to torch 2.11: the remembered flag follows it.
    const upgraded = await makeVenv(fx.at('venv211'), [torchXpuDist('2.11.0+xpu', TORCH_211), ...intelRuntimeDists(TORCH_211)]);
    const again = await run(['plan', '--json'], { ...fx.env, VIRTUAL_ENV: upgraded.root });
    expect(again.exitCode, again.stderr).toBe(0);
    const plan = JSON.parse(again.stdout) as Plan;
    expect(plan.torch).toMatchObject({ python: upgraded.python, torch: '2.11.0+xpu' });
    expect(urVersions(plan)).toEqual({ 'intel-cmplr-lib-ur': '2025.3.2', umf: '1.0.3', tcmlib: '1.4.1' });

    const forget = await run(['plan', '--json', '--no-match-torch']);
    expect(forget.exitCode, forget.stderr).toBe(0);
    const unpinned = JSON.parse(forget.stdout) as Plan;
    expect(unpinned.torch).toBeUndefined();
    expect(unpinned.request!.matchTorch).toBeUndefined();
    expect(urVersions(unpinned)['intel-cmplr-lib-ur']).toBe(fx.index.fixtures.urVersions.newer);
  });

  it('--match-torch and --no-match-torch together are a usage error', async () => {
    const r = await run(['plan', '--match-torch', '--no-match-torch']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('pick one of --match-torch and --no-match-torch');
  });

  it('lock takes it: the lockfile records the request and the matched versions', async () => {
    const lockfile = fx.at('xpu-setup.lock.json');
    const r = await runCli(['lock', '--match-torch', '--component', 'unified-runtime', '--lockfile', lockfile], inVenv());
    expect(r.exitCode, r.stderr).toBe(0);
    const lock = JSON.parse(await fs.readFile(lockfile, 'utf8')) as { request: Record<string, unknown>; platforms: Record<string, { components: { archives: { package: string; version: string }[] }[] }> };
    expect(lock.request.matchTorch).toEqual({});
    const archives = lock.platforms['linux-x64']!.components.flatMap((c) => c.archives);
    expect(Object.fromEntries(archives.map((a) => [a.package, a.version]))).toEqual({ 'intel-cmplr-lib-ur': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' });
  });
});

describe('without --match-torch', () => {
  it('an active venv whose torch runs with other versions than the plan picks: the plan says so and how to match', async () => {
    const r = await runCli(['plan', '--json', ...urOnly('p6')], inVenv());
    expect(r.exitCode, r.stderr).toBe(0);
    const said =
      `${venv.root} (VIRTUAL_ENV) has torch 2.10.0+xpu, installed with intel-cmplr-lib-ur 2025.3.1, umf 1.0.2, tcmlib 1.4.1; ` +
      'this plan picks intel-cmplr-lib-ur 2026.1.0, umf 1.1.0, tcmlib 1.5.0, and with the prefix on the library path torch may load those instead of its own ' +
      '(LIBUR_LOADER_0.x not found, crashes): to match it, add --match-torch';
    expect(joined(r.stderr)).toContain(`warning: ${said}`);
    expect((JSON.parse(r.stdout) as Plan).notes).toContain(said);
  });

  it('the check reads the environment\'s site-packages without starting Python; no active environment, nothing is said', async () => {
    // A python3 first on PATH that leaves a mark when started.
    const spy = fx.at('spy');
    const mark = fx.at('python-started');
    await fs.mkdir(spy, { recursive: true });
    await fs.writeFile(path.join(spy, 'python3'), `#!/bin/sh\ntouch '${mark}'\nexec ${SYSTEM_PYTHON} "$@"\n`, { mode: 0o755 });
    const spied = { ...fx.env, PATH: `${spy}:${fx.env.PATH}` };
    const withEnv = await runCli(['plan', ...urOnly('p7')], { ...spied, VIRTUAL_ENV: venv.root });
    expect(withEnv.exitCode, withEnv.stderr).toBe(0);
    expect(withEnv.stderr).toContain('to match it, add --match-torch');
    const without = await runCli(['plan', ...urOnly('p8')], spied);
    expect(without.exitCode, without.stderr).toBe(0);
    expect(without.stderr).not.toContain('torch');
    expect(await fs.stat(mark).then(() => true, () => false)).toBe(false);
  });
});
