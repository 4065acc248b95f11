// The GPU user-mode driver from GitHub release assets, through the built CLI against a local server shaped like the
// GitHub REST API (test/support/github-releases.ts: Debian 12's real driver files repacked under Intel's package
// names): the newest published compute-runtime release, every sha256 from its ww<WW>.sum, IGC from the release its
// manifests/manifest.yml pins, and after `. env.sh` alone ocloc compiles for dg2.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CR_DRAFT_TAG,
  CR_OLDER_TAG,
  CR_TAG,
  GMM_VERSION,
  IGC_NEWER_TAG,
  IGC_TAG,
  IGC_VERSION,
  MISSING_ASSET,
  startGithubServer,
  WRONG_ASSET,
  type GithubServer,
  type GithubVariant,
} from '../support/github-releases.js';
import type { CliRun } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const run = promisify(execFile);
let server: GithubServer;
const fx = withFixtureRun('github-source', { noIndex: true });
let prefix: string;
let setup: CliRun;

function install(variant: GithubVariant, into: string): Promise<CliRun> {
  return fx.run(['--component', 'gpu-driver', '--source', 'github', '--github-url', server.api(variant), '--prefix', into, '--cache-dir', fx.at(`cache-${variant}`), '--no-probe', '--no-smoke']);
}

beforeAll(async () => {
  server = await startGithubServer();
  prefix = fx.at('p');
  setup = await install('good', prefix);
}, 600_000);

afterAll(async () => {
  await server?.close();
});

describe('gpu-driver from GitHub release assets', () => {
  it('takes the newest published release, its debs with the sha256 its sum list gives, and the IGC release manifest.yml pins', async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.components).toEqual([expect.objectContaining({ name: 'gpu-driver', version: CR_TAG, source: `github ${server.api('good')}` })]);
    const archives: { package: string; version: string; sha256: string }[] = receipt.archives;
    expect(archives.map((a) => `${a.package} ${a.version}`)).toEqual([
      `libze-intel-gpu1 ${CR_TAG}-0`,
      `intel-opencl-icd ${CR_TAG}-0`,
      `intel-ocloc ${CR_TAG}-0`,
      `libigdgmm12 ${GMM_VERSION}`,
      `intel-igc-core-2 ${IGC_VERSION}+12504`,
      `intel-igc-opencl-2 ${IGC_VERSION}+12504`,
    ]);
    for (const a of archives) expect(a.sha256).toBe(server.debs.find((d) => d.package === a.package)!.sha256);
    // IGC's release is asked for by the tag manifest.yml names, never by listing IGC's releases (a newer one is there).
    expect(server.requests).toContain(`/api-good/repos/intel/intel-graphics-compiler/releases/tags/${IGC_TAG}`);
    expect(server.requests.filter((r) => r.includes(IGC_NEWER_TAG) || r.startsWith('/api-good/repos/intel/intel-graphics-compiler/releases?'))).toEqual([]);
    expect(server.requests).toContain(`/api-good/repos/intel/compute-runtime/contents/manifests/manifest.yml?ref=${CR_TAG}`);
    expect(server.requests.filter((r) => r.includes(CR_DRAFT_TAG))).toEqual([]);
    expect(server.requests).toContain(`/api-good/download/intel/compute-runtime/releases/download/${CR_TAG}/ww43.sum`);
  });

  it('a --require below the newest takes the newest release within it, by the tags\' numeric order, with its own sum list', async () => {
    const r = await fx.run(['--component', 'gpu-driver', '--source', 'github', '--github-url', server.api('good'), '--prefix', fx.at('p-older'), '--require', `gpu-driver<${CR_TAG}`, '--dry-run', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const [c] = JSON.parse(r.stdout).plan.components;
    expect(c.version).toBe(CR_OLDER_TAG);
    expect(c.archives.map((a: { filename: string }) => a.filename)).toEqual(expect.arrayContaining([`intel-ocloc_${CR_OLDER_TAG}-0_amd64.deb`, `intel-igc-core-2_${IGC_VERSION}+12504_amd64.deb`]));
    expect(server.requests).toContain(`/api-good/download/intel/compute-runtime/releases/download/${CR_OLDER_TAG}/ww39.sum`);
  });

  it('lays the driver, the ICD, IGC (from usr/local/lib), gmmlib and ocloc into the prefix', async () => {
    for (const f of ['lib/libze_intel_gpu.so.1', 'lib/intel-opencl/libigdrcl.so', 'lib/libigc.so.1', 'lib/libigdfcl.so.1', 'lib/libopencl-clang.so.14', 'lib/libigdgmm.so.12', 'lib/libocloc.so', 'bin/ocloc']) {
      await expect(fs.stat(path.join(prefix, f)), f).resolves.toBeTruthy();
    }
    expect(await fs.readFile(path.join(prefix, 'etc/OpenCL/vendors/intel.icd'), 'utf8')).toBe(`${prefix}/lib/intel-opencl/libigdrcl.so\n`);
  });

  it('after . env.sh alone, ocloc compiles an OpenCL kernel for dg2 into a zebin', async () => {
    await fs.writeFile(fx.at('add.cl'), 'kernel void add(global const float *a, global const float *b, global float *c) { size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n');
    const { stdout } = await run('sh', ['-c', `. '${prefix}/env.sh' && command -v ocloc && ocloc compile -file add.cl -device dg2 -output add -internal_options -cl-intel-allow-zebin`], {
      cwd: fx.work,
      env: { HOME: fx.home, PATH: '/usr/bin:/bin' },
      maxBuffer: 64 << 20,
    });
    expect(stdout.split('\n')[0]).toBe(`${prefix}/bin/ocloc`);
    expect(stdout).toMatch(/Build succeeded/);
    const bin = (await fs.readdir(fx.work)).find((n) => n.startsWith('add_') && n.endsWith('.bin'));
    const head = await fs.readFile(fx.at(bin!));
    expect(head.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(head.readUInt16LE(18)).toBe(205);
  });
});

describe('gpu-driver from GitHub: what is refused, and nothing installed', () => {
  const refused = async (variant: GithubVariant): Promise<CliRun> => {
    const into = fx.at(`p-${variant}`);
    const r = await install(variant, into);
    expect(r.exitCode, r.stderr).not.toBe(0);
    await expect(fs.stat(path.join(into, 'lib'))).rejects.toThrow();
    return r;
  };

  it('a sum list whose sha256 for an asset differs from the digest GitHub lists: refused at plan, naming the asset and both hashes', async () => {
    const r = await refused('wrong-sum');
    const good = server.debs.find((d) => d.filename === WRONG_ASSET)!.sha256;
    expect(r.stderr).toContain(WRONG_ASSET);
    expect(r.stderr).toMatch(/the sum list \S+ww43\.sum says [0-9a-f]{64}, the GitHub API's digest says/);
    expect(r.stderr).toContain(good);
    expect(r.stderr).toContain('the release was changed after its sum list was written, or one of them is wrong: nothing was installed');
  });

  it('a wrong sha256 in the sum list, with no digest to compare: the download is refused against the sum list, naming the asset', async () => {
    const r = await refused('wrong-sum-no-digest');
    const good = server.debs.find((d) => d.filename === WRONG_ASSET)!.sha256;
    expect(r.stderr).toMatch(new RegExp(`sha256 mismatch for \\S+/${WRONG_ASSET.replace(/[.+]/g, '\\$&')}: expected (?!${good})[0-9a-f]{64}, got ${good}`));
  });

  it('an asset the sum list does not list: refused, naming it', async () => {
    const r = await refused('missing-sum');
    expect(r.stderr).toContain(`${MISSING_ASSET} of release ${CR_TAG} is not in its sum list`);
  });

  it('an API that refuses more requests (403, rate limit): said as that, with what to do', async () => {
    const r = await refused('rate-limited');
    expect(r.stderr).toMatch(/answered HTTP 403: the GitHub API refuses this address more requests for now/);
    expect(r.stderr).toContain('name a mirror of the API with --github-url');
  });

  it('a manifest.yml that pins IGC at a commit, not a release: no IGC release is guessed', async () => {
    const r = await refused('igc-by-commit');
    expect(r.stderr).toContain('pins igc at 7da96420a6c5be941b7710646a9f729b7760a9bc, which is not a release');
  });
});
