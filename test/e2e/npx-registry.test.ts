// `npx xpu-setup` as users run it: the packed project served from a local npm registry on 127.0.0.1 (with koffi as
// installed here), run by npx in a fresh HOME with an empty npm cache, in an empty directory; nothing else reached.
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/base/version.js';
import { freshNpmEnv, npmPack, startNpmRegistry, type NpmRegistry } from '../support/npm-registry.js';
import { REPO, scrubbedEnv } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('npx-registry');
let registry: NpmRegistry;
let env: Record<string, string>;
let cwd: string;

/** The koffi packages this machine installed, packed again: koffi and its binary for this platform. */
const KOFFI = ['koffi', `@koromix/koffi-${process.platform}-${process.arch}`];
const KOFFI_VERSION = (JSON.parse(readFileSync(path.join(REPO, 'node_modules', 'koffi', 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  if (!existsSync(path.join(REPO, 'dist', 'xpu-setup.cjs'))) throw new Error('dist/xpu-setup.cjs is missing: run `npm run build` first');
  const packs = fx.at('packs');
  await fs.mkdir(packs);
  const npmHome = { npm_config_cache: fx.at('pack-cache') };
  const tarballs = await Promise.all([REPO, ...KOFFI.map((k) => path.join(REPO, 'node_modules', k))].map((dir) => npmPack(dir, packs, npmHome)));
  registry = await startNpmRegistry(tarballs);
  env = scrubbedEnv(fx.home, { ...freshNpmEnv(fx.home, registry.url), XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
  cwd = fx.at('empty');
  await fs.mkdir(cwd);
}, 300_000);

afterAll(async () => {
  await registry?.close();
});

const npx = (args: string[]) => execa('npx', ['--registry', registry.url, 'xpu-setup', ...args], { env, extendEnv: false, cwd, reject: false, timeout: 300_000 });

describe('npx xpu-setup from a registry, in a fresh HOME', () => {
  it('--help, cold: npx fetches xpu-setup and koffi from the registry alone, and the CLI answers', async () => {
    const r = await npx(['--help']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^usage: xpu-setup /m);
    expect(registry.requests).toEqual(expect.arrayContaining(['/xpu-setup', `/-/xpu-setup-${VERSION}.tgz`, '/koffi']));
    // Only xpu-setup, koffi and koffi's per-platform packages were asked for, and only this platform's tarball.
    const names = registry.requests.filter((p) => !p.startsWith('/-/'));
    expect(names.filter((n) => !/^\/(xpu-setup|koffi|@koromix\/koffi-[a-z0-9]+-[a-z0-9]+)$/.test(n))).toEqual([]);
    expect(registry.requests.filter((p) => p.startsWith('/-/')).sort()).toEqual([`/-/${KOFFI[1]!.replace('/', '__')}-${KOFFI_VERSION}.tgz`, `/-/koffi-${KOFFI_VERSION}.tgz`, `/-/xpu-setup-${VERSION}.tgz`].sort());
    // Nothing was written where it ran.
    expect(await fs.readdir(cwd)).toEqual([]);
  }, 300_000);

  it('a real install from a fixture index, then doctor --json on it; hints name `npx xpu-setup`', async () => {
    const prefix = fx.at('prefix');
    const setup = await npx(['--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--prefix', prefix, '--no-smoke']);
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(existsSync(path.join(prefix, 'include', 'level_zero', 'ze_api.h'))).toBe(true);
    expect(setup.stderr).toContain('eval "$(npx xpu-setup env --prefix');
    // No reachability check: the fixture channel is the only index this run may reach.
    const doctor = await npx(['doctor', '--json', '--prefix', prefix, '--check', 'platform,ze-loader,headers,sdk-path,prefix']);
    const report = JSON.parse(doctor.stdout) as { schema: unknown; checks: { id: string; status: string }[] };
    expect(report.schema).toBeDefined();
    expect(report.checks.map((c) => c.id)).toEqual(['platform', 'ze-loader', 'headers', 'sdk-path', 'prefix']);
    // Debian 12's 1.8.12 headers, below the recommended 1.9: a warning, not a failure.
    expect(Object.fromEntries(report.checks.map((c) => [c.id, c.status]))).toMatchObject({ prefix: 'ok', headers: 'warn', 'ze-loader': 'warn' });
  }, 300_000);
});
