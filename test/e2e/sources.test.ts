// Sources as people mean them, typed as people type them: a named source that lacks a package, a manifest floor that
// only recommends, list variables, sizes from plain HTML indexes, local bundles offline, and whose request lock extends.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { joined, runCli, scrubbedEnv } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

/** A fresh user: no XPU_SETUP_* variables, so the manifests' own floors apply. */
const fx = withFixtureRun('sources');
/** A port nothing listens on. */
const DEAD = 'http://127.0.0.1:9';
const noNetwork = (e: Record<string, string>) => ({ ...e, HTTP_PROXY: DEAD, HTTPS_PROXY: DEAD });
/** UR installed alone loads with this machine's loader, Debian 12's 1.8.12: a UR before 2026, whose adapters call nothing newer. */
const UR_FOR_DEBIAN_12 = 'unified-runtime<2026';
const readJson = async (p: string) => JSON.parse(await fs.readFile(p, 'utf8'));

describe('a named source that lacks a package lets the next allowed source answer', () => {
  it('lock --conda-channel C --index-url I --source conda,pypi: Level Zero from the channel, UR from the index', async () => {
    const lockfile = fx.at('named', 'xpu-setup.lock.json');
    const r = await fx.run(['lock', '--conda-channel', fx.index.condaChannelUrl('newer'), '--index-url', fx.index.simpleUrl, '--source', 'conda,pypi', '--lockfile', lockfile]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`level-zero ${fx.index.fixtures.l0Versions.newer} from conda ${fx.index.condaChannelUrl('newer')}\n`);
    expect(r.stderr).toMatch(/unified-runtime 20\d\d\.\d+\.\d+ from pypi http:\/\/127\.0\.0\.1:\d+\/simple\n/);
    expect(r.stderr).toMatch(/tried conda .*\/conda\/newer: intel-cmplr-lib-ur not found in/);
    const lock = await readJson(lockfile);
    expect(lock.platforms['linux-x64'].components.map((c: { name: string; source: string }) => `${c.name} ${c.source}`)).toEqual(['level-zero conda', 'unified-runtime pypi']);
  });

  it('plan and bundle say the same; setup installs UR from the index', async () => {
    // UR alone loads with this machine's loader (Debian 12's 1.8.12): UR 2025, whose adapters need nothing newer.
    const args = ['--conda-channel', fx.index.condaChannelUrl('trixie'), '--index-url', fx.index.simpleUrl, '--source', 'conda,pypi', '--component', 'unified-runtime', '--require', UR_FOR_DEBIAN_12];
    const plan = await fx.run(['plan', '--prefix', fx.at('named', 'p'), ...args, '--json']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).components[0]).toMatchObject({ name: 'unified-runtime', source: 'pypi', attempts: [{ source: 'conda', outcome: 'not-found' }, { source: 'pypi', outcome: 'chosen' }] });
    const bundle = await fx.run(['bundle', '--platform', 'linux-x64', '--out', fx.at('named', 'bundle'), ...args]);
    expect(bundle.exitCode, bundle.stderr).toBe(0);
    const setup = await fx.run(['--prefix', fx.at('named', 'p'), '--cache-dir', fx.at('named', 'cache'), ...args, '--no-probe', '--json']);
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(JSON.parse(setup.stdout).components).toEqual([expect.objectContaining({ name: 'unified-runtime', source: expect.stringMatching(/^pypi http:\/\/127\.0\.0\.1:\d+\/simple$/) })]);
  });

  it('a named channel that cannot be reached still stops, and the error names the option or variable that named it', async () => {
    const args = ['plan', '--index-url', fx.index.simpleUrl, '--source', 'conda,pypi', '--component', 'unified-runtime'];
    const flag = await fx.run([...args, '--conda-channel', `${DEAD}/conda`]);
    expect(flag.exitCode).toBe(1);
    expect(flag.stderr).toMatch(/error: unified-runtime: the source you named failed: conda http:\/\/127\.0\.0\.1:9\/conda: cannot reach/);
    expect(flag.stderr).toMatch(/hint: xpu-setup never falls back from a source you named \(--conda-channel\)/);
    const variable = await runCli(args, { ...fx.env, XPU_SETUP_CONDA_CHANNELS: `${DEAD}/conda` });
    expect(variable.exitCode).toBe(1);
    expect(variable.stderr).toMatch(/hint: xpu-setup never falls back from a source you named \(XPU_SETUP_CONDA_CHANNELS\)/);
    expect(variable.stderr).toMatch(/unset XPU_SETUP_CONDA_CHANNELS to use the default sources/);
  });

  it('a named channel that is not a channel (404) stops too', async () => {
    const r = await fx.run(['plan', '--index-url', fx.index.simpleUrl, '--source', 'conda,pypi', '--component', 'unified-runtime', '--conda-channel', `${fx.index.url}/conda/no-such-channel`]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/error: unified-runtime: the source you named failed: conda .*no-such-channel/);
  });
});

describe('list variables: one separator rule, errors name the variable', () => {
  it('XPU_SETUP_CONDA_CHANNELS takes commas and newlines; spaces are an error that says so and names the variable', async () => {
    const two = `${fx.index.condaChannelUrl('trixie')},\n ${fx.index.condaChannelUrl('bookworm')}`;
    const ok = await runCli(['plan', '--component', 'level-zero', '--json'], { ...fx.env, XPU_SETUP_CONDA_CHANNELS: two });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).request.indexes.conda).toEqual([fx.index.condaChannelUrl('trixie'), fx.index.condaChannelUrl('bookworm')]);
    const spaced = await runCli(['plan', '--component', 'level-zero'], { ...fx.env, XPU_SETUP_CONDA_CHANNELS: 'conda-forge intel' });
    expect(spaced.exitCode).toBe(2);
    expect(spaced.stderr).toMatch(/error: XPU_SETUP_CONDA_CHANNELS "conda-forge intel" is not an http\(s\) URL/);
    expect(spaced.stderr).toMatch(/hint: XPU_SETUP_CONDA_CHANNELS takes several values separated by commas \(or newlines\), not spaces/);
  });

  it('XPU_SETUP_REQUIRE takes the same separators; a bad entry is blamed on the variable', async () => {
    const ok = await runCli(['plan', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--component', 'level-zero', '--json'], { ...fx.env, XPU_SETUP_REQUIRE: 'level-zero >= 1.8,\nunified-runtime>=2025' });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).request.requires).toEqual(['level-zero>=1.8', 'unified-runtime>=2025']);
    const bad = await runCli(['plan'], { ...fx.env, XPU_SETUP_REQUIRE: 'level-zero>=1.8;unified-runtime' });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/error: XPU_SETUP_REQUIRE: cannot read the version constraint "level-zero>=1\.8;unified-runtime"/);
  });
});

describe('sizes from an index that gives none (PEP 503 HTML)', () => {
  it('plan and lock show and record the size; a bundle and the receipt record the size verified on download', async () => {
    const args = ['--index-url', fx.index.htmlOnlySimpleUrl, '--component', 'unified-runtime', '--require', UR_FOR_DEBIAN_12];
    const plan = await fx.run(['plan', '--prefix', fx.at('sizes', 'p'), ...args]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/intel_cmplr_lib_ur-\S+\.whl {2}\d+ KiB/);
    const lockfile = fx.at('sizes', 'xpu-setup.lock.json');
    const lock = await fx.run(['lock', '--lockfile', lockfile, ...args]);
    expect(lock.exitCode, lock.stderr).toBe(0);
    expect(lock.stderr).not.toMatch(/\? B/);
    const locked = (await readJson(lockfile)).platforms['linux-x64'].components[0].archives[0];
    const size = (await fs.stat(fx.index.packages.find((p) => p.sha256 === locked.sha256)!.path)).size;
    expect(locked.size).toBe(size);
    const out = fx.at('sizes', 'bundle');
    expect((await fx.run(['bundle', '--platform', 'linux-x64', '--out', out, ...args])).exitCode).toBe(0);
    expect((await readJson(path.join(out, 'xpu-setup.lock.json'))).platforms['linux-x64'].components[0].archives[0].size).toBe(size);
    const prefix = fx.at('sizes', 'p');
    const setup = await fx.run(['--prefix', prefix, '--cache-dir', fx.at('sizes', 'cache'), ...args, '--no-probe']);
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect((await readJson(path.join(prefix, 'xpu-setup.receipt.json'))).plan.components[0].archives[0].size).toBe(size);
  });
});

describe('a local bundle is its own offline source', () => {
  it('--from ./bundle --offline installs with an empty download cache and no network, from a relative path', async () => {
    const dir = fx.at('offline');
    await fs.mkdir(dir, { recursive: true });
    const made = await fx.run(['bundle', '--platform', 'linux-x64', '--out', './xpu-bundle', '--index-url', fx.index.simpleUrl, '--component', 'unified-runtime', '--require', UR_FOR_DEBIAN_12], { cwd: dir });
    expect(made.exitCode, made.stderr).toBe(0);
    const r = await runCli(['--from', './xpu-bundle', '--offline', '--prefix', './prefix', '--cache-dir', './empty-cache', '--no-probe'], noNetwork(fx.env), { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await fs.stat(path.join(dir, 'prefix', 'lib', 'libur_loader.so.0')).then(() => true)).toBe(true);
    const viaUrl = await runCli(['--from', `file://${dir}/xpu-bundle`, '--offline', '--prefix', './prefix2', '--cache-dir', './empty-cache2', '--no-probe'], noNetwork(fx.env), { cwd: dir });
    expect(viaUrl.exitCode, viaUrl.stderr).toBe(0);
  });
});

describe('lock, bundle and plan say whose request they resolve', () => {
  const home = () => fx.at('home10');
  const user = () => scrubbedEnv(home());
  const prefix = () => path.join(home(), '.local', 'share', 'xpu-setup');

  beforeAll(async () => {
    // Level Zero in the default prefix, from a channel (one UR 2026's adapters can use); UR nowhere.
    const r = await runCli(['--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('newer'), '--no-probe'], user());
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('lock --source pypi --component unified-runtime locks only UR, whatever the default prefix holds', async () => {
    const lockfile = fx.at('req10', 'xpu-setup.lock.json');
    const r = await runCli(['lock', '--source', 'pypi', '--component', 'unified-runtime', '--index-url', fx.index.simpleUrl, '--lockfile', lockfile], user());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/request: this command line only, no prefix's recorded request \(--prefix DIR extends the one recorded there\)/);
    expect((await readJson(lockfile)).platforms['linux-x64'].components.map((c: { name: string }) => c.name)).toEqual(['unified-runtime']);
    const b = await runCli(['bundle', '--platform', 'linux-x64', '--out', fx.at('req10', 'b'), '--source', 'pypi', '--component', 'unified-runtime', '--index-url', fx.index.simpleUrl], user());
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stderr).toMatch(/request: this command line only/);
  });

  it('lock --prefix extends that prefix\'s recorded request, and says so', async () => {
    const lockfile = fx.at('req10', 'extended.lock.json');
    const r = await runCli(['lock', '--prefix', prefix(), '--index-url', fx.index.simpleUrl, '--component', 'unified-runtime', '--lockfile', lockfile], user());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`request: this command line, extending the one recorded in ${path.join(prefix(), 'xpu-setup.receipt.json')}`);
    expect((await readJson(lockfile)).platforms['linux-x64'].components.map((c: { name: string }) => c.name)).toEqual(['level-zero', 'unified-runtime']);
  });

  it('plan names the receipt whose request it extends', async () => {
    const r = await runCli(['plan', '--index-url', fx.index.simpleUrl], user());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`extends the request recorded in ${path.join(prefix(), 'xpu-setup.receipt.json')}`);
  });
});

describe('a manifest floor is a preference, a floor you ask for is a requirement', () => {
  const prefix = () => fx.at('floor', 'prefix');
  let run: { exitCode: number; stdout: string; stderr: string };

  beforeAll(async () => {
    run = await fx.run(['--prefix', prefix(), '--cache-dir', fx.at('floor', 'cache'), '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-probe', '--json']);
  });

  it('installs the best reachable Level Zero below the floor, and says what it lacks and how to get a newer one', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    // Short on stderr; the long form, with a fix that can work here, in --json (and under --verbose).
    expect(run.stderr).toMatch(/warning: level-zero 1\.8\.12 is below the recommended level-zero>=1\.9 \(no source it reached has one\); --verbose says what it lacks and how to get a newer one/);
    const doc = JSON.parse(run.stdout);
    expect(doc.belowFloor).toEqual([
      expect.objectContaining({
        component: 'level-zero',
        version: '1.8.12',
        floor: ['level-zero>=1.9'],
        message: expect.stringMatching(/which no source it reached has; it lacks ze_device_ip_version_ext_t .*, new in 1\.9\.0.*\. For a newer one: no source this machine reached has one: name one that has: (?:node )?\S*xpu-setup(?:\.js)? --prefix \S+ --component level-zero --conda-channel \S+ --conda-channel URL or --index-url URL/),
      }),
    ]);
    // Asking for the floor would only turn the warning into an error: no fix says that.
    expect(doc.belowFloor[0].fix).not.toContain('--require');
  });

  it('the receipt records it, and a re-run says it again', async () => {
    const receipt = await readJson(path.join(prefix(), 'xpu-setup.receipt.json'));
    expect(receipt.components[0]).toMatchObject({ name: 'level-zero', version: '1.8.12', belowFloor: { floor: ['level-zero>=1.9'] } });
    const again = await fx.run(['--prefix', prefix(), '--cache-dir', fx.at('floor', 'cache'), '--no-probe']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/warning: level-zero 1\.8\.12 is below the recommended level-zero>=1\.9/);
  });

  it('doctor warns, with the command as its fix; exit 0 unless --strict', async () => {
    const r = await fx.run(['doctor', '--prefix', prefix(), '--check', 'prefix']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/! Prefix receipt: \d+ files match the receipt, but level-zero 1\.8\.12 is below the recommended level-zero>=1\.9/);
    expect(joined(r.stdout)).toMatch(/fix: no source this machine reached has one: name one that has: (?:node )?\S*xpu-setup(?:\.js)? --prefix \S+ .*--conda-channel URL or --index-url URL .*--from DIR/);
    expect(r.stdout).not.toMatch(/fix: .*--require 'level-zero>=1\.9'/);
    expect((await fx.run(['doctor', '--prefix', prefix(), '--check', 'prefix', '--strict'])).exitCode).toBe(1);
  });

  it('a lockfile that holds a version below the recommended floor says so when it is installed', async () => {
    const lockfile = fx.at('floor', 'below.lock.json');
    const lock = await fx.run(['lock', '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--lockfile', lockfile]);
    expect(lock.exitCode, lock.stderr).toBe(0);
    const p = fx.at('floor', 'locked');
    const r = await fx.run(['--locked', '--lockfile', lockfile, '--prefix', p, '--cache-dir', fx.at('floor', 'cache'), '--no-probe']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: level-zero 1\.8\.12 is below the recommended level-zero>=1\.9/);
    expect((await readJson(path.join(p, 'xpu-setup.receipt.json'))).components[0].belowFloor).toMatchObject({ floor: ['level-zero>=1.9'] });
  });

  it('--require and XPU_SETUP_REQUIRE keep the floor hard', async () => {
    const args = ['plan', '--prefix', fx.at('floor', 'hard'), '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('bookworm')];
    for (const r of [
      await fx.run([...args, '--require', 'level-zero>=1.9']),
      await runCli(args, { ...fx.env, XPU_SETUP_REQUIRE: 'level-zero>=1.9' }),
    ]) {
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/error: no source could provide level-zero for linux-x64/);
    }
  });

  it('the README\'s first command on a machine that reaches no conda channel installs Debian\'s loader and says what it lacks', async () => {
    // The shipped manifest with its default channel replaced by a dead one: a default source, not one the user named.
    const manifests = fx.at('manifests-dead');
    await fs.mkdir(manifests, { recursive: true });
    const l0 = await readJson(path.join(__dirname, '../../manifests/level-zero.json'));
    l0.platforms['linux-x64'].sources[0].channels = [`${DEAD}/conda-forge`];
    await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
    const p = fx.at('floor', 'apt');
    const r = await fx.run(['--prefix', p, '--cache-dir', fx.at('floor', 'apt-cache'), '--manifests', manifests, '--component', 'level-zero', '--no-probe']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: level-zero 1\.8\.12 is below the recommended level-zero>=1\.9 \(not reached: conda http:\/\/127\.0\.0\.1:9\/conda-forge \(ECONNREFUSED\)\)/);
    // The doctor's fix for it names the unreached channel and what works here: that channel once reachable, or another.
    const doctor = await fx.run(['doctor', '--prefix', p, '--check', 'prefix']);
    expect(joined(doctor.stdout)).toMatch(/fix: not reached: conda http:\/\/127\.0\.0\.1:9\/conda-forge \(ECONNREFUSED\)\. Once it is reachable \(behind a proxy: HTTPS_PROXY\): .* --refresh; or .*--conda-channel URL .*--from DIR/);
    expect((await readJson(path.join(p, 'xpu-setup.receipt.json'))).components[0]).toMatchObject({ version: '1.8.12', source: expect.stringMatching(/^apt /), belowFloor: { floor: ['level-zero>=1.9'] } });
  });

  it('doctor after a setup that reached none of its indexes says how to reach them once, and lines fit in 200 characters', async () => {
    // Level Zero's channel dead, and every other index behind a proxy that refuses: Level Zero from apt, UR skipped.
    const manifests = fx.at('manifests-dead-all');
    await fs.cp(path.join(__dirname, '../../manifests'), manifests, { recursive: true });
    const l0 = await readJson(path.join(manifests, 'level-zero.json'));
    l0.platforms['linux-x64'].sources[0].channels = [`${DEAD}/conda-forge`];
    await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
    const p = fx.at('floor', 'none-reached');
    const cut = noNetwork(fx.env);
    const r = await runCli(['--prefix', p, '--cache-dir', fx.at('floor', 'none-reached-cache'), '--manifests', manifests, '--no-probe'], cut);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await readJson(path.join(p, 'xpu-setup.receipt.json'))).skipped).toEqual([expect.objectContaining({ name: 'unified-runtime' })]);
    const doctor = await runCli(['doctor', '--prefix', p, '--check', 'headers,ur,prefix'], cut);
    const out = doctor.stdout;
    // One paragraph names every index the last setup did not reach and the ways past it; the other checks point to it.
    expect(joined(out).split('. Once they are reachable (behind a proxy: HTTPS_PROXY)').length, out).toBe(2);
    expect(joined(out)).toMatch(/fix: not reached: conda http:\/\/127\.0\.0\.1:9\/conda-forge \(ECONNREFUSED\); pypi https:\/\/pypi\.org\/simple \(ECONNREFUSED\);/);
    expect(out.match(/^ {6}fix: as for Level Zero headers above$/gm), out).toHaveLength(2);
    expect(out).toMatch(/^ {10}Once they are reachable \(behind a proxy: HTTPS_PROXY\): \S+ \S+ --prefix \S+ --refresh;$/m);
    expect(out.split('\n').filter((l) => l.length > 200), out).toEqual([]);
  });
});
