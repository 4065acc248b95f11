// `xpu-setup cache dir|size|clean` and `xpu-setup uninstall` as a user types them, after a real install from the
// fixture index.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEBIAN_12_STACK, REPO, runCli } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('cache-uninstall', { require: DEBIAN_12_STACK });
let prefix: string;
let cache: string;

beforeAll(async () => {
  cache = path.join(fx.home, '.cache', 'xpu-setup');
  prefix = path.join(fx.home, 'xpu');
  const setup = await fx.run(['--prefix', prefix, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-probe']);
  expect(setup.exitCode, setup.stderr).toBe(0);
}, 300_000);

describe('xpu-setup cache', () => {
  it('dir prints the default cache directory; size lists the archives and index answers setup kept', async () => {
    const dir = await fx.run(['cache', 'dir']);
    expect(dir.exitCode, dir.stderr).toBe(0);
    expect(dir.stdout).toBe(cache);
    const size = await fx.run(['cache', 'size', '--json']);
    expect(size.exitCode, size.stderr).toBe(0);
    const doc = JSON.parse(size.stdout);
    const part = (id: string) => doc.parts.find((p: { id: string }) => p.id === id);
    expect(part('downloads')).toMatchObject({ path: path.join(cache, 'sha256') });
    expect(part('downloads').files).toBeGreaterThanOrEqual(3);
    expect(part('index')).toMatchObject({ path: path.join(cache, 'index') });
    expect(part('index').files).toBeGreaterThan(0);
    expect(doc.total.bytes).toBe(doc.parts.reduce((n: number, p: { bytes: number }) => n + p.bytes, 0));
    // The code cache beside the bundle is a part too, unless XPU_SETUP_CODE_CACHE=0 turns it off.
    expect(part('code').path).toBe(path.join(REPO, 'dist'));
    const text = await runCli(['cache', 'size'], { ...fx.env, XPU_SETUP_CODE_CACHE: '0' });
    expect(text.stdout).toMatch(/^  downloaded archives +\d+ files +[\d.]+ [KM]iB +\//m);
    expect(text.stdout).not.toContain('code cache');
  });

  it('clean --older-than keeps what was just used; clean empties the cache; a wrong age or action is a usage error', async () => {
    // Other tests run the same bundle: its code cache is left alone here (the unit tests clean one of their own).
    const quiet = { ...fx.env, XPU_SETUP_CODE_CACHE: '0' };
    const some = await runCli(['cache', 'clean', '--older-than', '30d', '--json'], quiet);
    expect(some.exitCode, some.stderr).toBe(0);
    expect(JSON.parse(some.stdout).removed.find((p: { id: string }) => p.id === 'downloads').files).toBe(0);
    const all = await runCli(['cache', 'clean'], quiet);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stdout).toMatch(new RegExp(`^removed \\d+ files \\([\\d.]+ [KM]iB\\) from ${cache}\\n`));
    const after = JSON.parse((await runCli(['cache', 'size', '--json'], quiet)).stdout);
    for (const id of ['downloads', 'index', 'plans', 'partial']) expect(after.parts.find((p: { id: string }) => p.id === id).files).toBe(0);
    const bad = await runCli(['cache', 'clean', '--older-than', '30'], quiet);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--older-than 30: not an age');
    const typo = await runCli(['cache', 'sise'], quiet);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('did you mean size?');
  });
});

describe('xpu-setup uninstall', () => {
  it('refuses a directory xpu-setup did not make and leaves it as it was', async () => {
    const mine = fx.at('mine');
    await fs.mkdir(mine);
    await fs.writeFile(path.join(mine, 'notes.txt'), 'keep me');
    const r = await fx.run(['uninstall', '--prefix', mine]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${mine} has no readable xpu-setup.receipt.json, so xpu-setup did not make it`);
    expect(await fs.readFile(path.join(mine, 'notes.txt'), 'utf8')).toBe('keep me');
    // Never an invitation to delete it by hand (it may be /etc), and nothing written beside it (no lock file).
    expect(r.stderr).not.toMatch(/remove this directory yourself/);
    expect(r.stderr).toContain('hint: check the path: name the prefix you installed into with --prefix');
    expect((await fs.readdir(fx.work)).filter((f) => f.startsWith('mine') && f !== 'mine')).toEqual([]);
    const etc = await fx.run(['uninstall', '--prefix', '/etc']);
    expect(etc.exitCode).toBe(1);
    expect(etc.stderr).toContain('/etc has no readable xpu-setup.receipt.json');
  });

  it('removes the prefix it made and names the start-up lines that load it; a second run says nothing is there', async () => {
    await fs.writeFile(path.join(fx.home, '.bashrc'), 'export EDITOR=vi\n. ~/xpu/env.sh\n');
    await fs.mkdir(path.join(fx.home, '.config', 'fish'), { recursive: true });
    await fs.writeFile(path.join(fx.home, '.config', 'fish', 'config.fish'), 'source $HOME/xpu/env.fish\n');
    const r = await fx.run(['uninstall', '--prefix', '~/xpu']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^removed ${prefix} \\(\\d+ files, [\\d.]+ [KM]iB\\)$`));
    expect(r.stderr).toContain(`${fx.home}/.bashrc:2: . ~/xpu/env.sh\n`);
    expect(r.stderr).toContain(`${fx.home}/.config/fish/config.fish:1: source $HOME/xpu/env.fish\n`);
    await expect(fs.stat(prefix)).rejects.toThrow();
    expect((await fs.readdir(fx.home)).filter((n) => n.startsWith('xpu'))).toEqual([]);
    const again = await fx.run(['uninstall', '--prefix', prefix, '--json']);
    expect(again.exitCode).toBe(1);
    const err = JSON.parse(again.stdout).error;
    expect(err.code).toBe('NOT_FOUND');
    expect(err.hints.join('\n')).toContain(`${fx.home}/.bashrc:2: . ~/xpu/env.sh`);
  });
});
