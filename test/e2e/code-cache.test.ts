// bin/xpu-setup.js and V8's code cache beside the bundle: written by a command's first run, used (not rewritten) by the
// next, refused and rewritten when damaged, never touched with XPU_SETUP_CODE_CACHE=0, and never changing an answer.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEBIAN_12_STACK } from './cli.js';
import { packageCopy, withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('code-cache');

/** A copy of the package as npm would install it (bin, dist, data, manifests, package.json), so its dist/ is this test's own. */
beforeAll(async () => {
  await packageCopy(fx.work);
});

const run = (args: string[], extra: Record<string, string> = {}) =>
  execa(process.execPath, [fx.at('bin', 'xpu-setup.js'), ...args], { env: { ...fx.env, ...extra }, extendEnv: false, reject: false });
const caches = async () => (await fs.readdir(fx.at('dist'))).filter((f) => f.endsWith('.v8cache') && !f.startsWith('.xpu-setup-vendor-')).sort();
const vendorCaches = async () => (await fs.readdir(fx.at('dist'))).filter((f) => f.startsWith('.xpu-setup-vendor-')).sort();

describe('the code cache', () => {
  it('is written by the first run of a command, named by the bundle hash, Node and the command, and kept by the next', async () => {
    const first = await run(['--version']);
    const [name] = await caches();
    expect(name).toMatch(new RegExp(`^\\.xpu-setup-[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}-version\\.v8cache$`));
    const file = fx.at('dist', name!);
    const before = await fs.stat(file);
    await new Promise((r) => setTimeout(r, 20));
    const second = await run(['--version']);
    expect([second.exitCode, second.stdout]).toEqual([0, first.stdout]);
    expect((await fs.stat(file)).mtimeMs).toBe(before.mtimeMs);
  });

  it('keeps one cache per command, none for a word that is not one', async () => {
    await run(['--help']);
    await run(['help', 'env']);
    expect((await run(['no-such-command'])).exitCode).toBe(2);
    expect((await caches()).map((n) => n.replace(/^\.xpu-setup-[0-9a-f]+-[^-]+-[^-]+-/, ''))).toEqual(['help.v8cache', 'version.v8cache']);
  });

  it('a damaged cache is refused by V8 and replaced; the answer is the same', async () => {
    const [name] = (await caches()).filter((n) => n.endsWith('-version.v8cache'));
    const file = fx.at('dist', name!);
    await fs.writeFile(file, Buffer.alloc(4096, 0x5a));
    const r = await run(['--version']);
    expect([r.exitCode, r.stdout]).toEqual([0, `xpu-setup ${JSON.parse(await fs.readFile(fx.at('package.json'), 'utf8')).version}`]);
    expect((await fs.readFile(file)).equals(Buffer.alloc(4096, 0x5a))).toBe(false);
    expect((await fs.readdir(fx.at('dist'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a run that fails keeps a provisional cache only, which the next run that succeeds replaces', async () => {
    const ofCompletion = async () => (await caches()).filter((n) => n.includes('-completion.'));
    expect((await run(['completion', 'no-such-shell'])).exitCode).toBe(2);
    const [partial] = await ofCompletion();
    expect(partial).toMatch(/-completion\.partial\.v8cache$/);
    // Another failure uses it and leaves it as it is.
    const before = (await fs.stat(fx.at('dist', partial!))).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    expect((await run(['completion', 'no-such-shell'])).exitCode).toBe(2);
    expect((await fs.stat(fx.at('dist', partial!))).mtimeMs).toBe(before);
    const ok = await run(['completion', 'bash']);
    expect(ok.exitCode).toBe(0);
    expect(await ofCompletion()).toEqual([partial!.replace('.partial.v8cache', '.v8cache')]);
  });

  it('XPU_SETUP_CODE_CACHE=0 neither writes nor needs one', async () => {
    const before = await caches();
    const r = await run(['env', '--help'], { XPU_SETUP_CODE_CACHE: '0' });
    expect(r.exitCode).toBe(0);
    const s = await run(['completion', 'bash'], { XPU_SETUP_CODE_CACHE: '0' });
    expect(s.exitCode).toBe(0);
    expect(await caches()).toEqual(before);
  });

  it('each dependency file a run loads gets a cache of its own, named by that file\'s content hash, and kept by the next run', async () => {
    const install = (prefix: string, extra: Record<string, string> = {}) =>
      run(['--prefix', fx.at(prefix), '--cache-dir', fx.at(`${prefix}-cache`), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-probe', '--quiet'], {
        XPU_SETUP_INDEX_URL: fx.index.simpleUrl,
        XPU_SETUP_REQUIRE: DEBIAN_12_STACK,
        ...extra,
      });
    expect((await install('p0', { XPU_SETUP_CODE_CACHE: '0' })).exitCode).toBe(0);
    expect(await vendorCaches()).toEqual([]);
    expect((await install('p1')).exitCode).toBe(0);
    const names = await vendorCaches();
    // A conda install reads zips (yauzl) and tars (tar).
    const expected: string[] = [];
    for (const dep of ['tar', 'yauzl']) {
      const first = (await fs.readFile(fx.at('dist', `xpu-setup-vendor-${dep}.cjs`), 'utf8')).split('\n', 1)[0]!;
      const key = /^\/\/ xpu-setup vendor ([0-9a-f]{16})$/.exec(first)?.[1];
      expect(key, dep).toBeDefined();
      expected.push(`.xpu-setup-vendor-${key}-${process.version}-${process.arch}.v8cache`);
    }
    for (const name of expected) expect(names).toContain(name);
    const stamps = await Promise.all(names.map(async (n) => (await fs.stat(fx.at('dist', n))).mtimeMs));
    await new Promise((r) => setTimeout(r, 20));
    expect((await install('p2')).exitCode).toBe(0);
    expect(await vendorCaches()).toEqual(names);
    expect(await Promise.all(names.map(async (n) => (await fs.stat(fx.at('dist', n))).mtimeMs))).toEqual(stamps);
  });
});
