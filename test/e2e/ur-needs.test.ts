// UR 2026's Level Zero adapters (linked -z now) call what loader 1.25 added: the plan pairs UR with a loader that has
// it, or goes back to a UR that does not need one (stopping before any download only when UR is pinned); the pre-swap
// check refuses such a tree when the plan's rule is bypassed, and beside a loader that has it the real UR walk loads
// the adapters.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli, scrubbedEnv } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('ur-needs', { require: 'level-zero>=1.8' });
/** A port nothing listens on: connection refused, like an index that is down. */
const DEAD = 'http://127.0.0.1:9';
const WHY = 'its Level Zero adapters call zeDeviceSynchronize and zeCommandListAppendLaunchKernelWithArguments, which the loader exports from 1.25.0 on';

const exists = (p: string) => fs.lstat(p).then(() => true, () => false);
/** Package files (not indexes) the fixture index was asked for since `from`. */
const packagesAsked = (from: number) => fx.index.requests.slice(from).filter((q) => /\.(whl|conda|tar\.bz2)$/.test(q.path));
const args = (name: string, channel: 'bookworm' | 'newer', more: string[] = []) => [
  '--prefix', fx.at(name, 'p'), '--cache-dir', fx.at(name, 'cache'), '--conda-channel', fx.index.condaChannelUrl(channel), ...more,
];

describe('UR 2026 where the only loader reachable is Debian 12\'s 1.8.12', () => {
  it('a bare run plans UR 2025.3.2 beside that loader, says why in one line, and installs both', async () => {
    const r = await fx.run([...args('old', 'bookworm'), '--no-probe']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: unified-runtime 2025.3.2 from pypi (${fx.index.fixtures.urVersions.newer} (pypi), 2026.0.0 (pypi): needs level-zero>=1.25; the newest reachable is 1.8.12 (conda))`);
    const receipt = JSON.parse(await fs.readFile(fx.at('old', 'p', 'xpu-setup.receipt.json'), 'utf8'));
    expect(Object.fromEntries(receipt.components.map((c: { name: string; version: string }) => [c.name, c.version]))).toEqual({ 'level-zero': '1.8.12', 'unified-runtime': '2025.3.2' });
  });

  it('plan --json carries the reason as data', async () => {
    const r = await fx.run(['plan', '--json', ...args('old-plan', 'bookworm')]);
    expect(r.exitCode, r.stderr).toBe(0);
    const ur = JSON.parse(r.stdout).components.find((c: { name: string }) => c.name === 'unified-runtime');
    expect(ur).toMatchObject({
      version: '2025.3.2',
      choice: {
        rejected: [
          { candidate: `${fx.index.fixtures.urVersions.newer} (pypi)`, why: 'needs level-zero>=1.25; the newest reachable is 1.8.12 (conda)' },
          { candidate: '2026.0.0 (pypi)', why: 'needs level-zero>=1.25; the newest reachable is 1.8.12 (conda)' },
        ],
      },
    });
  });

  it('lock and bundle settle the same way: their lockfiles hold UR 2025.3.2 beside 1.8.12, and --locked installs that pair', async () => {
    const dir = fx.at('old-lock');
    const lockfile = path.join(dir, 'xpu-setup.lock.json');
    const cache = ['--cache-dir', path.join(dir, 'cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm')];
    const lock = await fx.run(['lock', '--lockfile', lockfile, ...cache]);
    expect(lock.exitCode, lock.stderr).toBe(0);
    const versions = (doc: { platforms: Record<string, { components: { name: string; version: string }[] }> }) =>
      Object.fromEntries(doc.platforms['linux-x64']!.components.map((c) => [c.name, c.version]));
    expect(versions(JSON.parse(await fs.readFile(lockfile, 'utf8')))).toEqual({ 'level-zero': '1.8.12', 'unified-runtime': '2025.3.2' });
    const bundle = await fx.run(['bundle', '--platform', 'linux-x64', '--out', path.join(dir, 'bundle'), ...cache]);
    expect(bundle.exitCode, bundle.stderr).toBe(0);
    expect(versions(JSON.parse(await fs.readFile(path.join(dir, 'bundle', 'xpu-setup.lock.json'), 'utf8')))).toEqual({ 'level-zero': '1.8.12', 'unified-runtime': '2025.3.2' });
    const locked = await fx.run(['--locked', '--lockfile', lockfile, '--prefix', path.join(dir, 'p'), '--cache-dir', path.join(dir, 'cache'), '--no-probe']);
    expect(locked.exitCode, locked.stderr).toBe(0);
    const receipt = JSON.parse(await fs.readFile(path.join(dir, 'p', 'xpu-setup.receipt.json'), 'utf8'));
    expect(Object.fromEntries(receipt.components.map((c: { name: string; version: string }) => [c.name, c.version]))).toEqual({ 'level-zero': '1.8.12', 'unified-runtime': '2025.3.2' });
  });

  it('with UR 2026 pinned, stops before anything is fetched, naming both versions, why, the ways out and what was turned away', async () => {
    const from = fx.index.requests.length;
    const newer = fx.index.fixtures.urVersions.newer;
    const r = await fx.run(args('pinned', 'bookworm', ['--require', `unified-runtime==${newer}`]));
    expect(r.exitCode).toBe(1);
    const channel = fx.index.condaChannelUrl('bookworm');
    expect(r.stderr).toContain(
      `error: unified-runtime ${newer} needs level-zero >=1.25 (${WHY}); no reachable source has one: the level-zero the sources offer is 1.8.12 (conda ${channel})\n` +
        "  hint: use a unified-runtime older than 2026: --require 'unified-runtime<2026'\n" +
        '  hint: or a bundle made where a level-zero >=1.25 is reachable (xpu-setup bundle), or a channel that has one (--conda-channel)\n' +
        `  hint: tried level-zero: conda ${channel}: newest level-zero in ${channel} (linux-64) is 1.8.12, which does not meet level-zero>=1.25\n` +
        '  hint: tried level-zero: apt: apt has libze1 1.8.12-1, which does not meet level-zero>=1.25\n' +
        `  hint: tried unified-runtime ${newer} (pypi): needs level-zero>=1.25; the newest reachable is 1.8.12 (conda)\n` +
        '  hint: nothing was downloaded',
    );
    expect(packagesAsked(from)).toEqual([]);
    expect(await exists(fx.at('pinned', 'p'))).toBe(false);
  });

  it('--json gives the refusal as data: the component, its version, the need, what was reachable and what was turned away', async () => {
    const r = await fx.run([...args('old-json', 'bookworm', ['--require', `unified-runtime==${fx.index.fixtures.urVersions.newer}`]), '--json']);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: 'RESOLUTION_CONFLICT',
      details: { component: 'unified-runtime', version: fx.index.fixtures.urVersions.newer, needs: 'level-zero>=1.25', reachable: '1.8.12 (conda)', rejected: { 'unified-runtime': [{ candidate: `${fx.index.fixtures.urVersions.newer} (pypi)` }] } },
    });
  });

  it('takes UR 2025 over that loader when asked, as the hint says', async () => {
    const r = await fx.run(['plan', '--json', ...args('old-2025', 'bookworm', ['--require', 'unified-runtime<2026'])]);
    expect(r.exitCode, r.stderr).toBe(0);
    const versions = Object.fromEntries(JSON.parse(r.stdout).components.map((c: { name: string; version: string }) => [c.name, c.version]));
    expect(versions).toEqual({ 'level-zero': '1.8.12', 'unified-runtime': '2025.3.2' });
  });

  it('with the rule bypassed (a manifest without "needs"), the pre-swap check refuses the tree, naming the adapter and the symbols', async () => {
    const manifests = fx.at('manifests-no-needs');
    await fs.mkdir(manifests, { recursive: true });
    for (const m of ['level-zero.json', 'unified-runtime.json']) {
      const j = JSON.parse(await fs.readFile(path.join(REPO, 'manifests', m), 'utf8'));
      delete j.needs;
      await fs.writeFile(path.join(manifests, m), JSON.stringify(j));
    }
    const r = await fx.run(['--manifests', manifests, ...args('bypassed', 'bookworm')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('✗ refused before the swap; the prefix was left as it was');
    for (const adapter of ['libur_adapter_level_zero.so.0', 'libur_adapter_level_zero_v2.so.0']) {
      expect(r.stderr).toContain(`lib/${adapter} calls zeCommandListAppendLaunchKernelWithArguments and zeDeviceSynchronize, which no library it loads with defines (looked in lib/${adapter}, lib/libumf.so.1, lib/libze_loader.so.1, `);
    }
    expect(r.stderr).toContain("install level-zero >= 1.25.0 (`--require 'level-zero>=1.25.0'`)");
    expect(await exists(fx.at('bypassed', 'p'))).toBe(false);
  });
});

describe('UR 2026 where a channel has a loader >= 1.25 (the fixture channel newer: the forwarding loader double)', () => {
  let prefix: string;
  let setup: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    prefix = fx.at('newer', 'p');
    setup = await fx.run([...args('newer', 'newer'), '--no-probe']);
  });

  it('asks the loader\'s other sources when the first one\'s is too old, and says why', async () => {
    // apt first: Debian 12's 1.8.12 is the first choice, and the need sends the plan on to the channel's loader.
    const r = await fx.run(['plan', '--json', ...args('newer-plan', 'newer', ['--source', 'apt,pypi,conda'])]);
    expect(r.exitCode, r.stderr).toBe(0);
    const l0 = JSON.parse(r.stdout).components.find((c: { name: string }) => c.name === 'level-zero');
    expect(l0).toMatchObject({ version: fx.index.fixtures.l0Versions.newer, source: 'conda', constraints: ['level-zero>=1.8', 'level-zero>=1.25'] });
    expect(l0.notes).toContain(`level-zero ${fx.index.fixtures.l0Versions.newer}: unified-runtime ${fx.index.fixtures.urVersions.newer} needs level-zero>=1.25 (${WHY})`);
  });

  it('plans that loader with the reason, and installs both', async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(Object.fromEntries(receipt.components.map((c: { name: string; version: string }) => [c.name, c.version]))).toEqual({
      'level-zero': fx.index.fixtures.l0Versions.newer,
      'unified-runtime': fx.index.fixtures.urVersions.newer,
    });
    expect(await fs.readlink(path.join(prefix, 'lib', 'libze_loader.so.1'))).toBe(`libze_loader.so.${fx.index.fixtures.l0Versions.newer}`);
  });

  it('the real UR walk, in a shell that sourced env.sh, loads both Level Zero adapters\' loader and reaches the level_zero platform', async () => {
    const script = `const { probeUr } = await import(${JSON.stringify(path.join(REPO, 'dist', 'bindings', 'ur.js'))});
      process.stdout.write(JSON.stringify(probeUr(process.argv[1])));`;
    const walk = (extra: Record<string, string> = {}) =>
      execa('sh', ['-c', `. '${prefix}/env.sh' && exec "$0" --input-type=module -e "$1" "$2"`, process.execPath, script, path.join(prefix, 'lib', 'libur_loader.so.0')], {
        env: { PATH: '/usr/bin:/bin', HOME: fx.env.HOME!, XPU_SETUP_UR_DOUBLE_DEVICES: '1', ...extra },
        extendEnv: false,
      });
    expect(JSON.parse((await walk()).stdout)).toMatchObject({ init: 0, adapters: 2, backends: [1, 2], platforms: ['xpu-setup UR test double level_zero', 'xpu-setup UR test double opencl'] });
    expect(JSON.parse((await walk({ UR_LOADER_USE_LEVEL_ZERO_V2: '1' })).stdout).platforms).toEqual(['xpu-setup UR test double level_zero_v2', 'xpu-setup UR test double opencl']);
  });

  it('a program built with pkg-config against the prefix reaches the real loader under the double: zeInit answers 0x78000001', async () => {
    const src = fx.at('zeinit.c');
    await fs.writeFile(src, '#include <stdio.h>\n#include <level_zero/ze_api.h>\nint main(void){printf("0x%x\\n",(unsigned)zeInit(0));return 0;}\n');
    const exe = fx.at('zeinit');
    const r = await execa('sh', ['-c', `. '${prefix}/env.sh' && cc '${src}' $(pkg-config --cflags --libs level-zero) -o '${exe}' && '${exe}'`], { env: { PATH: '/usr/bin:/bin' }, extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('0x78000001');
  });
});

describe('the README\'s first command on a machine that reaches no conda channel and no PyPI', () => {
  it('installs Debian\'s loader from apt and leaves UR out, without the rule stopping it', async () => {
    const p = fx.at('readme', 'p');
    // Every https index (conda-forge, Intel's channel, PyPI) goes through a proxy that refuses; apt's archive is http.
    const r = await runCli(['--prefix', p, '--cache-dir', fx.at('readme', 'cache'), '--no-probe'], scrubbedEnv(fx.at('readme', 'home'), { HTTPS_PROXY: DEAD }));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('needs level-zero');
    const receipt = JSON.parse(await fs.readFile(path.join(p, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.components.map((c: { name: string; version: string; source: string }) => `${c.name} ${c.version} ${c.source.split(' ')[0]}`)).toEqual(['level-zero 1.8.12 apt']);
  });
});
