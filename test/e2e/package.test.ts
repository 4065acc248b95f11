// The npm package as people get it: `npm pack`, then `npm install -g` and `npx` of the tarball in an empty directory,
// with the npm registry reachable for the runtime dependencies (koffi) and nothing else; then real commands.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { shq } from '../../src/base/shell-words.js';
import { VERSION } from '../../src/base/version.js';
import { REPO, scrubbedEnv } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('package');
let tgz: string;
/** npm's own settings (registry, CA) as on this machine, with a cache of its own so every download is real. */
let npmEnv: Record<string, string | undefined>;

/** npm takes the nearest directory above with a package.json as the project, and reads `./x.tgz` from there. */
const insideAProject = (dir: string): boolean => {
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) if (existsSync(path.join(d, 'package.json'))) return true;
  return false;
};

beforeAll(async () => {
  if (!existsSync(path.join(REPO, 'dist', 'xpu-setup.cjs'))) throw new Error('dist/xpu-setup.cjs is missing: run `npm run build` first');
  npmEnv = { ...process.env, npm_config_cache: fx.at('npm-cache'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  // The build is already there (npm test builds first); --ignore-scripts keeps `prepare` from rebuilding it under other tests.
  const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', fx.work], { cwd: REPO, env: npmEnv });
  tgz = fx.at((JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
}, 300_000);

describe('the packed tarball', () => {
  it('holds the prebuilt CLI and its data, no sources, tests or action bundle, and depends on koffi alone', async () => {
    const list = (await execa('tar', ['tzf', tgz])).stdout.split('\n');
    expect(list).toContain('package/bin/xpu-setup.js');
    expect(list).toContain('package/dist/xpu-setup.cjs');
    // A full repodata scan starts its worker thread from this file beside the bundle.
    expect(list).toContain('package/dist/xpu-setup-scan-worker.cjs');
    // bin/ asks it before loading the bundle; without it every no-op would load the whole CLI.
    expect(list).toContain('package/dist/xpu-setup-quick.cjs');
    expect(list).toContain('package/manifests/level-zero.json');
    expect(list.filter((f) => /^package\/(src|test|scripts)\/|xpu-setup-action|\.map$|node_modules/.test(f))).toEqual([]);
    const pkg = JSON.parse((await execa('tar', ['xzOf', tgz, 'package/package.json'])).stdout) as { dependencies: Record<string, string>; bin: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).toEqual(['koffi']);
    expect(pkg.bin).toEqual({ 'xpu-setup': 'bin/xpu-setup.js' });
  });

  it('carries its licence text, where it comes from, and every file README and docs/ link to', async () => {
    const list = new Set((await execa('tar', ['tzf', tgz])).stdout.split('\n'));
    const file = async (rel: string) => (await execa('tar', ['xzOf', tgz, `package/${rel}`])).stdout;
    expect(await file('LICENSE')).toMatch(/^MIT License\n[\s\S]*Permission is hereby granted, free of charge/);
    const pkg = JSON.parse(await file('package.json')) as Record<string, unknown>;
    expect(pkg).toMatchObject({
      license: 'MIT',
      repository: { type: 'git', url: 'git+https://github.com/xpu-setup/xpu-setup.git' },
      homepage: 'https://github.com/xpu-setup/xpu-setup#readme',
      bugs: { url: 'https://github.com/xpu-setup/xpu-setup/issues' },
    });
    expect(pkg.keywords).toEqual(expect.arrayContaining(['level-zero', 'intel', 'gpu']));
    const missing: string[] = [];
    for (const doc of [...list].filter((f) => /^package\/(README\.md|docs\/[^/]+\.md)$/.test(f))) {
      for (const m of (await file(doc.slice('package/'.length))).matchAll(/\]\(([^)#:]+)(#[^)]*)?\)/g)) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(doc), m[1]!));
        if (!list.has(target)) missing.push(`${doc} -> ${m[1]!}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('npm install -g --prefix in an empty directory gives a working xpu-setup: --version, and a real install from an index', async () => {
    const empty = fx.at('empty');
    const global = fx.at('global');
    await fs.mkdir(empty);
    const installed = await execa('npm', ['install', '-g', '--prefix', global, tgz], { cwd: empty, env: npmEnv, reject: false });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(await fs.readdir(empty)).toEqual([]);
    const bin = path.join(global, 'bin', 'xpu-setup');
    const env = scrubbedEnv(fx.home, { PATH: `${path.join(global, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
    const version = await execa(bin, ['--version'], { env, extendEnv: false, cwd: empty });
    expect(version.stdout.trim()).toContain(VERSION);
    const prefix = fx.at('prefix');
    const setup = await execa('xpu-setup', ['--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--prefix', prefix, '--no-smoke'], { env, extendEnv: false, cwd: empty, reject: false });
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(existsSync(path.join(prefix, 'include', 'level_zero', 'ze_api.h'))).toBe(true);
    // It is on PATH under its name, so the closing line says just that.
    expect(setup.stderr).toContain(`eval "$(xpu-setup env --prefix ${shq(prefix)})"`);
  }, 300_000);

  it('npx runs the tarball in an empty directory, and its hints name the tarball again', async () => {
    const empty = fx.at('npx-here');
    await fs.mkdir(empty);
    await fs.copyFile(tgz, path.join(empty, path.basename(tgz)));
    // `./x.tgz` where npm reads it from this directory; npm would look in the project above otherwise (as on this
    // machine, where the temp dir's parent holds a package.json).
    const spec = insideAProject(empty) ? `file:${path.join(empty, path.basename(tgz))}` : `./${path.basename(tgz)}`;
    const npx = (args: string[]) => execa('npx', ['--yes', spec, ...args], { cwd: empty, env: { ...npmEnv, HOME: fx.home }, reject: false });
    const version = await npx(['--version']);
    expect(version.exitCode, version.stderr).toBe(0);
    expect(version.stdout.trim()).toContain(VERSION);
    const missing = await npx(['env', '--prefix', fx.at('nothing')]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(`hint: install first: npx ${shq(`file:${path.join(empty, path.basename(tgz))}`)} --prefix`);
  }, 300_000);
});
