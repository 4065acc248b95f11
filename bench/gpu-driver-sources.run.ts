// Benchmark: a cold install of the GPU driver set from a conda channel and from GitHub release assets (Debian 12's
// compute-runtime 22.43 files in each source's real shape, served on 127.0.0.1) against the floor for the same
// archives: curl each one, sha256sum, and unpack it as its format asks (`.conda`: unzip, then zstd -d | tar x of its
// package tarball; `.deb`: dpkg-deb -x). Alternating rounds, medians, ratios within one run; peak RSS once each. Beside
// them, `xpu-setup plan` alone with a cold cache and `node -e 0`: what of the CPU a 1.3x target allows is spent before
// the first archive, on work the floor is never asked to do.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, it } from 'vitest';
import { BIN, scrubbedEnv, tempDir } from '../test/e2e/cli.js';
import { buildGpuDriverConda } from '../test/support/gpu-driver-conda.js';
import { startGithubServer, type GithubServer } from '../test/support/github-releases.js';
import { startFixtureIndex, type FixtureIndex } from '../test/support/index-server.js';
import { buildFixturePackages } from '../test/support/packages.js';
import { alternate, peakRssKiB, ratio, timeRun, writeResults, type Case } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 5);
let work: string;
let index: FixtureIndex;
let github: GithubServer;

beforeAll(async () => {
  work = await tempDir('bench-gpu-driver-sources');
  const [base, gpu] = await Promise.all([buildFixturePackages(), buildGpuDriverConda()]);
  index = await startFixtureIndex({ fixtures: { ...base, artifacts: [...base.artifacts, ...gpu] } });
  github = await startGithubServer();
}, 900_000);

afterAll(async () => {
  await index?.close();
  await github?.close();
  await fs.rm(work, { recursive: true, force: true });
});

/** The shell line that unpacks one archive the floor fetched, as its format asks. */
function unpack(file: string): string {
  if (file.endsWith('.conda')) return `unzip -qo '${file}' 'pkg-*' -d x && for z in x/pkg-*.tar.zst; do zstd -dcq "$z" | tar -x -C x; rm "$z"; done`;
  if (file.endsWith('.tar.bz2')) return `tar -xjf '${file}' -C x`;
  if (file.endsWith('.deb')) return `dpkg-deb -x '${file}' x`;
  throw new Error(`no floor for ${file}`);
}

it('cold install of the driver set from conda and from GitHub against curl | sha256sum | unpack of the same archives', async () => {
  const env = scrubbedEnv(path.join(work, 'home'));
  const legs = [
    { kind: 'conda', args: ['--component', 'gpu-driver', '--source', 'conda', '--conda-channel', index.condaChannelUrl('gpu-driver')] },
    { kind: 'github', args: ['--component', 'gpu-driver', '--source', 'github', '--github-url', github.api('good')] },
  ];
  const doc: Record<string, unknown> = {};
  const lines: string[] = [];
  for (const leg of legs) {
    const planned = JSON.parse((await execa(process.execPath, [BIN, 'plan', ...leg.args, '--prefix', path.join(work, 'plan'), '--json'], { env, extendEnv: false })).stdout);
    const archives: { url: string; filename: string; sha256: string; size?: number }[] = planned.components.flatMap((c: { archives?: unknown[] }) => c.archives ?? []);
    const dir = (name: string, i: number) => path.join(work, `${leg.kind}-${name}${i}`);
    const clean = (...names: string[]) => async (i: number) => {
      for (const n of names) await fs.rm(dir(n, i), { recursive: true, force: true });
    };
    const floor = archives
      .map((a) => `curl -sfL -o '${a.filename}' '${a.url}' && echo '${a.sha256}  ${a.filename}' | sha256sum -c --quiet && ${unpack(a.filename)}`)
      .join(' && ');
    const floorRun = (i: number) => fs.mkdir(path.join(dir('floor', i), 'x'), { recursive: true }).then(() => timeRun(['bash', '-c', `cd '${dir('floor', i)}' && ${floor}`]));
    const cold = (i: number) => [process.execPath, BIN, ...leg.args, '--prefix', dir('cold', i), '--cache-dir', dir('coldc', i), '--no-probe', '--no-smoke', '--quiet'];
    const planOnly = (i: number) => [process.execPath, BIN, 'plan', ...leg.args, '--prefix', dir('plan', i), '--cache-dir', dir('planc', i), '--quiet'];
    const cases: Case[] = [
      { name: `floor: curl, sha256sum, unpack (the ${archives.length} ${leg.kind} archives)`, before: clean('floor'), run: floorRun },
      { name: `xpu-setup cold from ${leg.kind}: plan, fetch, verify sha256, install (--no-probe)`, before: clean('cold', 'coldc'), run: (i) => timeRun(cold(i), { env }) },
      // What the cold install does before its first archive, and the floor never does: start, and plan from the source.
      { name: `xpu-setup plan alone, cold cache (${leg.kind})`, before: clean('plan', 'planc'), run: (i) => timeRun(planOnly(i), { env }) },
      { name: 'node -e 0', run: () => timeRun([process.execPath, '-e', '0'], { env }) },
    ];
    const results = await alternate(cases, N);
    await clean('floor', 'cold', 'coldc', 'plan', 'planc')(N);
    await fs.mkdir(path.join(dir('floor', N), 'x'), { recursive: true });
    const floorRss = await peakRssKiB(['bash', '-c', `cd '${dir('floor', N)}' && ${floor}`]);
    const coldRss = await peakRssKiB(cold(N), { env });
    const [f, c, p, n] = results as [(typeof results)[0], (typeof results)[0], (typeof results)[0], (typeof results)[0]];
    const allowedCpuMs = Math.round(1.3 * f.medianCpuMs);
    doc[leg.kind] = {
      archives: archives.map((a) => ({ filename: a.filename, size: a.size })),
      results,
      peakRssKiB: { floor: floorRss.kib, cold: coldRss.kib },
      ratios: { coldVsFloorWall: ratio(c.medianWallMs, f.medianWallMs), coldVsFloorCpu: ratio(c.medianCpuMs, f.medianCpuMs), coldVsFloorPeakRss: ratio(coldRss.kib, floorRss.kib) },
      // The CPU a cold install may use at 1.3x the floor, what starting and planning alone take of it, and what that
      // leaves for fetching, verifying, unpacking and checking the archives the floor fetches, verifies and unpacks.
      cpuBudget: { allowedMs: allowedCpuMs, planAloneMs: p.medianCpuMs, nodeStartMs: n.medianCpuMs, leftForTheArchivesMs: allowedCpuMs - p.medianCpuMs, floorForTheArchivesMs: f.medianCpuMs },
    };
    lines.push(...results.map((r) => `${String(r.medianWallMs).padStart(6)} ms wall ${String(r.medianCpuMs).padStart(6)} ms cpu  ${r.name}`), `${leg.kind} ratios: ${JSON.stringify((doc[leg.kind] as { ratios: unknown }).ratios)}`, `${leg.kind} CPU budget: ${JSON.stringify((doc[leg.kind] as { cpuBudget: unknown }).cpuBudget)}`);
  }
  const file = await writeResults('gpu-driver-sources', {
    rounds: N,
    method: 'alternating rounds, medians; wall and CPU (user+sys of the process tree) from bash time; both sides fetch the same URLs from the same 127.0.0.1 server; peak RSS from GNU time, one run each',
    ...doc,
  });
  console.log(`${lines.join('\n')}\nwritten to ${file}`);
}, 3_600_000);
