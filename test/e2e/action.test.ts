// The GitHub Action as the runner runs it: the committed bundle's main and post steps as processes, with the runner's
// files and variables faked in a temp dir and a stand-in cache service on 127.0.0.1.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCacheService, type FakeCacheService } from '../support/cache-service.js';
import { REPO } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('action');
let service: FakeCacheService;

beforeAll(async () => {
  service = await startFakeCacheService();
});

afterAll(async () => {
  await service?.close();
});

interface Job {
  exitCode: number;
  stdout: string;
  outputs: Record<string, string>;
  env: string;
  summary: string;
  state: Record<string, string>;
  post?: { exitCode: number; stdout: string };
}

/** GitHub's file-command syntax (`name=value`, or `name<<DELIM` ... `DELIM`), as the runner reads GITHUB_OUTPUT and GITHUB_STATE. */
function fileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i]!.includes('=')) out[lines[i]!.slice(0, lines[i]!.indexOf('='))] = lines[i]!.slice(lines[i]!.indexOf('=') + 1);
  }
  return out;
}

/**
 * One job on a fresh runner: an empty HOME, prefix and download cache (the same paths every job, as on hosted
 * runners), the runner's files, then main, and post with main's saved state as STATE_* variables.
 */
async function job(name: string, inputs: Record<string, string>, opts: { post?: boolean; env?: Record<string, string> } = {}): Promise<Job> {
  const dir = fx.at(name);
  const runner = fx.at('runner');
  await fs.rm(runner, { recursive: true, force: true });
  for (const d of ['home', 'temp', 'workspace']) await fs.mkdir(path.join(runner, d), { recursive: true });
  await fs.mkdir(dir, { recursive: true });
  const files = { GITHUB_ENV: 'env', GITHUB_PATH: 'path', GITHUB_OUTPUT: 'output', GITHUB_STATE: 'state', GITHUB_STEP_SUMMARY: 'summary' };
  for (const f of Object.values(files)) await fs.writeFile(path.join(dir, f), '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: path.join(runner, 'home'),
    LANG: 'C.UTF-8',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_TEMP: path.join(runner, 'temp'),
    GITHUB_WORKSPACE: path.join(runner, 'workspace'),
    ACTIONS_RUNTIME_TOKEN: 'fake-token',
    ACTIONS_RESULTS_URL: service.url,
    ACTIONS_CACHE_SERVICE_V2: 'True',
    ...Object.fromEntries(Object.entries(files).map(([k, f]) => [k, path.join(dir, f)])),
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    ...opts.env,
  };
  const run = (step: string, extra: Record<string, string> = {}) =>
    execa(process.execPath, [path.join(REPO, 'dist', `xpu-setup-action-${step}.cjs`)], { env: { ...env, ...extra }, extendEnv: false, reject: false, cwd: env.GITHUB_WORKSPACE, timeout: 300_000, all: true });
  const main = await run('main');
  const read = (f: string) => fs.readFile(path.join(dir, f), 'utf8');
  const state = fileCommands(await read('state'));
  const result: Job = { exitCode: main.exitCode ?? -1, stdout: String(main.all), outputs: fileCommands(await read('output')), env: await read('env'), summary: await read('summary'), state };
  if (opts.post !== false) {
    const post = await run('post', Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v])));
    result.post = { exitCode: post.exitCode ?? -1, stdout: String(post.all) };
  }
  return result;
}

const runnerPath = (...p: string[]) => fx.at('runner', ...p);

describe('the action on a fake runner', () => {
  const base = () => ({
    components: 'level-zero',
    'conda-channel': fx.index.condaChannelUrl('bookworm'),
    require: 'level-zero>=1.8',
    smoke: 'false',
    prefix: runnerPath('home', 'xpu'),
    'cache-dir': runnerPath('home', 'xpu-cache'),
  });
  let first: Job;

  beforeAll(async () => {
    first = await job('first', base());
  });

  it('installs, exports the environment and sets every output', () => {
    expect(first.exitCode, first.stdout).toBe(0);
    const prefix = runnerPath('home', 'xpu');
    expect(first.env).toContain(`LEVEL_ZERO_V1_SDK_PATH<<`);
    expect(first.env).toContain(`\n${prefix}\n`);
    expect(first.outputs).toMatchObject({ prefix, 'device-arch': '', changed: 'true', 'cache-hit': 'false', 'prefix-cache-hit': 'false' });
    expect(JSON.parse(first.outputs.versions!)).toEqual({ 'level-zero': { state: 'installed', version: '1.8.12', source: `conda ${fx.index.condaChannelUrl('bookworm')}` } });
    expect(first.outputs['cache-key']).toMatch(/^xpu-setup-linux-x64-[0-9a-f]{16}-\d+\.\d+\.\d+$/);
  });

  it('groups its log and writes a job summary of what, from where, and the probe', () => {
    for (const g of ['Plan', 'Restore the caches', 'Install']) expect(first.stdout).toContain(`::group::${g}`);
    // The Plan group holds the plan, as the CLI prints it.
    const plan = first.stdout.slice(first.stdout.indexOf('::group::Plan'), first.stdout.indexOf('::endgroup::', first.stdout.indexOf('::group::Plan')));
    expect(plan).toMatch(/plan for linux-x64 -> .*\n(?:.*\n)*?  level-zero 1\.8\.12 from conda http/);
    expect(first.summary).toContain('<h3>xpu-setup</h3>');
    expect(first.summary).toMatch(/<td>level-zero<\/td><td>1\.8\.12<\/td><td>installed<\/td><td>conda http:\/\/127\.0\.0\.1:\d+\//);
    expect(first.summary).toMatch(/<li>probe: [^<]+<\/li>/);
    expect(first.summary).toContain('<li>smoke test: off (smoke: false)</li>');
  });

  it('refdriver: true: the summary names the device the probe found beside the smoke test that ran on it', async () => {
    const r = await job('refdriver', { ...base(), refdriver: 'true', smoke: 'true', cache: 'false', prefix: runnerPath('home', 'xpu-ref') }, { post: false });
    expect(r.exitCode, r.stdout).toBe(0);
    expect(r.summary).toMatch(/<li>probe: device xpu-setup CPU reference device \(PoCL\); architecture [^<]+<\/li>/);
    expect(r.summary).not.toContain('no device');
    expect(r.summary).toContain('<li>smoke test: passed</li>');
  });

  it('restores nothing on a first run and saves the download cache in post', () => {
    expect(first.post?.exitCode, first.post?.stdout).toBe(0);
    const key = first.outputs['cache-key']!;
    const restore = service.calls.find((c) => c.method === 'GetCacheEntryDownloadURL');
    expect(restore).toMatchObject({ key, restoreKeys: ['xpu-setup-linux-x64-'] });
    expect(restore?.matched).toBeUndefined();
    expect(service.keys()).toEqual([key]);
  });

  it('a second job restores the cache by its exact key and saves nothing new', async () => {
    const calls = service.calls.length;
    const second = await job('second', base());
    expect(second.exitCode, second.stdout).toBe(0);
    expect(second.outputs).toMatchObject({ 'cache-hit': 'true', 'cache-key': first.outputs['cache-key'] });
    expect(second.post?.stdout).toContain('was restored whole: nothing new to save');
    expect(service.calls.slice(calls).map((c) => c.method)).toEqual(['GetCacheEntryDownloadURL']);
    // Restored, not downloaded: the index served no archive this time.
    expect(second.stdout).toContain(`Cache hit for: ${first.outputs['cache-key']}`);
  });

  it('another plan restores the older download cache through its restore key, then saves its own', async () => {
    // Unified Runtime too: more archives, so another plan.
    const other = await job('other-plan', { ...base(), components: 'level-zero,unified-runtime' });
    expect(other.exitCode, other.stdout).toBe(0);
    expect(other.outputs['cache-key']).not.toBe(first.outputs['cache-key']);
    expect(other.outputs['cache-hit']).toBe('false');
    expect(other.stdout).toContain(`Cache hit for restore-key: ${first.outputs['cache-key']}`);
    expect(service.keys()).toContain(other.outputs['cache-key']);
  });

  it('cache-prefix: the second job restores the installed prefix and changes nothing', async () => {
    const one = await job('prefix-1', { ...base(), 'cache-prefix': 'true' });
    expect(one.exitCode, one.stdout).toBe(0);
    expect(one.outputs).toMatchObject({ changed: 'true', 'prefix-cache-hit': 'false' });
    expect(service.keys().filter((k) => k.startsWith('xpu-setup-prefix-linux-x64-'))).toHaveLength(1);
    const two = await job('prefix-2', { ...base(), 'cache-prefix': 'true' });
    expect(two.exitCode, two.stdout).toBe(0);
    expect(two.outputs).toMatchObject({ changed: 'false', 'prefix-cache-hit': 'true' });
    // A prefix at another path is another key: never restored where its env files would name the wrong place.
    const moved = await job('prefix-moved', { ...base(), 'cache-prefix': 'true', prefix: runnerPath('home', 'elsewhere') });
    expect(moved.outputs).toMatchObject({ changed: 'true', 'prefix-cache-hit': 'false' });
  });

  it('a boolean input that is neither true nor false is an error annotation naming the input, and post saves nothing', async () => {
    const calls = service.calls.length;
    const bad = await job('bad-boolean', { ...base(), refdriver: 'maybe' });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toMatch(/^::error::input `refdriver` is "maybe": it takes true or false%0Afix: with: refdriver: true {2}\(the default is false\)$/m);
    expect(bad.post?.exitCode).toBe(0);
    expect(service.calls.length).toBe(calls);
  });

  it('save-cache: false restores but saves nothing; cache-suffix is in the keys', async () => {
    const calls = service.calls.length;
    const keys = service.keys().length;
    const pr = await job('pull-request', { ...base(), 'save-cache': 'false', 'cache-suffix': 'pr' });
    expect(pr.exitCode, pr.stdout).toBe(0);
    expect(pr.outputs['cache-key']).toMatch(/^xpu-setup-linux-x64-pr-[0-9a-f]{16}-/);
    expect(service.calls.slice(calls)[0]).toMatchObject({ method: 'GetCacheEntryDownloadURL', restoreKeys: ['xpu-setup-linux-x64-pr-'] });
    expect(pr.post?.stdout).toContain('save-cache: false: the caches were restored, and are not saved');
    expect(service.keys()).toHaveLength(keys);
    expect(pr.summary).toContain('not saved (save-cache: false)');
  });

  it('a require no source meets: the annotation says what was tried as `tried`, and only fixes as `fix:`', async () => {
    const bad = await job('require-fails', { ...base(), require: 'level-zero>=99' }, { post: false });
    expect(bad.exitCode).toBe(1);
    const annotation = bad.stdout.split('\n').find((l) => l.startsWith('::error::'))!;
    const lines = annotation.slice('::error::'.length).split('%0A');
    expect(lines[0]).toBe('no source could provide level-zero for linux-x64');
    expect(lines.filter((l) => /^tried level-zero: conda http:\/\/127\.0\.0\.1:\d+\/conda\/bookworm: /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /^fix: tried /.test(l))).toEqual([]);
    expect(lines).toContain("fix: to accept an older level-zero, lower the floor you set (input `require`, XPU_SETUP_REQUIRE): require: 'level-zero>=0'");
  });

  it('fixes are said in the action\'s terms: inputs, not command-line flags', async () => {
    const bad = await job('bad-source', { ...base(), source: 'condaa' }, { post: false });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toMatch(/^::error::unknown source: "condaa"%0Afix: did you mean conda\?%0Afix: sources: conda, pypi, url, apt/m);
    expect(bad.stdout).not.toMatch(/^::error::.*--source/m);
  });
});

/**
 * The shipped manifests with conda as the only source: Level Zero from the fixture channel and Unified Runtime from a
 * channel on a closed port of 127.0.0.1, as on a runner whose default UR index is unreachable (no source named, so
 * UR is skipped, not an error).
 */
async function manifestsWithUnreachableUr(dir: string, channel: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  for (const name of ['level-zero', 'unified-runtime']) {
    const m = JSON.parse(await fs.readFile(path.join(REPO, 'manifests', `${name}.json`), 'utf8')) as { platforms: Record<string, { sources?: { kind: string; channels?: string[] }[] }> };
    // A platform entry that is `like` another has no sources of its own.
    for (const p of Object.values(m.platforms)) {
      if (p.sources) p.sources = p.sources.filter((s) => s.kind === 'conda').map((s) => ({ ...s, channels: [name === 'level-zero' ? channel : 'http://127.0.0.1:9/conda/closed'] }));
    }
    await fs.writeFile(path.join(dir, `${name}.json`), JSON.stringify(m));
  }
  return dir;
}

describe('the action when a component is skipped', () => {
  let r: Job;
  beforeAll(async () => {
    const manifests = await manifestsWithUnreachableUr(fx.at('manifests-no-ur'), fx.index.condaChannelUrl('bookworm'));
    const { components: _c, 'conda-channel': _ch, ...rest } = { components: '', 'conda-channel': '', smoke: 'false', cache: 'false', prefix: runnerPath('home', 'xpu-skip'), 'cache-dir': runnerPath('home', 'xpu-skip-cache') };
    r = await job('skip-ur', rest, { post: false, env: { XPU_SETUP_MANIFESTS: manifests } });
  });

  it('says so in ::warning:: annotations, each once: UR skipped and why, Level Zero below its recommended floor', () => {
    expect(r.exitCode, r.stdout).toBe(0);
    const warnings = r.stdout.split('\n').filter((l) => l.startsWith('::warning::'));
    expect(warnings.filter((w) => w.startsWith('::warning::unified-runtime skipped: no source reached: conda http://127.0.0.1:9/conda/closed'))).toHaveLength(1);
    expect(warnings.filter((w) => w.startsWith('::warning::level-zero 1.8.12 is below the recommended level-zero>=1.9'))).toHaveLength(1);
    expect(new Set(warnings).size).toBe(warnings.length);
    // Its doctor hint names a command a person can run, not the action's own step.
    expect(warnings.filter((w) => w.startsWith('::warning::nothing could be run: '))).toEqual([expect.stringContaining('(`npx xpu-setup doctor` says why; verbose: true shows the hints)')]);
    expect(r.stdout).not.toMatch(/xpu-setup-action-main\.cjs doctor/);
    // Said as annotations, not also as plain warning lines.
    expect(r.stdout).not.toMatch(/^warning: /m);
  });

  it('lists every requested component in the summary and in `versions`, with its state', () => {
    const versions = JSON.parse(r.outputs.versions!) as Record<string, { state: string; version: string | null; why?: string }>;
    expect(versions['level-zero']).toMatchObject({ state: 'installed', version: '1.8.12' });
    expect(versions['unified-runtime']).toMatchObject({ state: 'skipped', version: null });
    expect(versions['unified-runtime']!.why).toMatch(/^no source reached: conda http:\/\/127\.0\.0\.1:9\/conda\/closed: /);
    expect(r.summary).toMatch(/<tr><td>unified-runtime<\/td><td>—<\/td><td>skipped: no source reached: conda http:\/\/127\.0\.0\.1:9\/conda\/closed: [^<]+ \(ECONNREFUSED\)<\/td><td>—<\/td><\/tr>/);
    expect(r.summary).toMatch(/<td>level-zero<\/td><td>1\.8\.12<\/td><td>installed<\/td>/);
  });
});
