// Benchmark: a cold install of Debian sid's GPU driver set (compute-runtime 26.27, IGC 2, gmmlib: about 70 MB of .deb)
// inside the sid root of the sid suite (scripts/sid-prepare.sh), against the floor `apt-get download` + `sha256sum` +
// `dpkg-deb -x` of the same archives there. Both sides run through scripts/in-root.sh (the same mount namespace set-up
// for each, a few milliseconds) and fetch through the root's apt from Debian's archive; alternating rounds, medians,
// ratios within one run. A machine that cannot build the root (not root) writes nothing and says why.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, it } from 'vitest';
import { REPO } from '../test/e2e/cli.js';
import { inSid, inSidArgv, prepareSid, rootEnv, sq } from '../test/sid/sid.js';
import { alternate, benchWorkDir, peakRssKiB, timeRun, writeColdAndNoop, type Case } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 5);
const work = benchWorkDir('bench-gpu-driver-sid');
let node: string | undefined;
let cannot: string | undefined;

beforeAll(async () => {
  const prepared = await prepareSid();
  if (prepared.cannot !== undefined) cannot = prepared.cannot;
  else node = prepared.node;
}, 1_500_000);

interface Archive {
  url: string;
  filename: string;
  size: number;
}

it("cold install of sid's GPU driver set from apt, in the sid root, against apt-get download | sha256sum | dpkg-deb -x", async (ctx) => {
  if (cannot !== undefined || node === undefined) {
    console.log(`skipped: ${cannot}`);
    ctx.skip();
    return;
  }
  const env = { HOME: path.join(work.path, 'home') };
  await fs.mkdir(env.HOME, { recursive: true });
  const cli = (...args: string[]) => [node!, path.join(REPO, 'bin', 'xpu-setup.js'), ...args].map(sq).join(' ');
  const args = ['--component', 'gpu-driver', '--source', 'apt'];
  const planned = await inSid(node, `${cli('plan', ...args, '--json')}`, env, work.path);
  if (planned.exitCode !== 0) throw new Error(`plan in the sid root failed:\n${planned.stderr}`);
  const archives: Archive[] = JSON.parse(planned.stdout).components.flatMap((c: { archives?: Archive[] }) => c.archives ?? []);
  const specs = archives.map((a) => sq(a.url.replace(/^apt:/, ''))).join(' ');
  const dir = (name: string, i: number) => path.join(work.path, `${name}${i}`);
  const clean = (...names: string[]) => async (i: number) => {
    for (const n of names) await fs.rm(dir(n, i), { recursive: true, force: true });
  };
  const floor = (i: number) => `cd ${sq(dir('floor', i))} && apt-get download -q -o APT::Sandbox::User=root ${specs} >/dev/null && sha256sum *.deb >/dev/null && for d in *.deb; do dpkg-deb -x "$d" x; done`;
  const coldArgs = (i: number) => [...args, '--prefix', dir('cold', i), '--cache-dir', dir('coldc', i), '--no-probe', '--no-smoke', '--quiet'];
  const inRoot = (script: string) => inSidArgv(node!, script);
  const cases: Case[] = [
    {
      name: `floor: apt-get download, sha256sum, dpkg-deb -x (the ${archives.length} archives, in the sid root)`,
      before: clean('floor'),
      run: (i) => fs.mkdir(dir('floor', i), { recursive: true }).then(() => timeRun(inRoot(floor(i)), { env: rootEnv(env) })),
    },
    {
      name: 'xpu-setup cold in the sid root: plan (apt-cache, Depends), fetch, verify sha256, install (--no-probe)',
      before: clean('cold', 'coldc'),
      run: (i) => timeRun(inRoot(cli(...coldArgs(i))), { env: rootEnv(env) }),
    },
  ];
  const results = await alternate(cases, N);
  await clean('floor', 'cold', 'coldc')(N);
  await fs.mkdir(dir('floor', N), { recursive: true });
  const floorRss = await peakRssKiB(inRoot(floor(N)), { env: rootEnv(env) });
  const coldRss = await peakRssKiB(inRoot(cli(...coldArgs(N))), { env: rootEnv(env) });
  const noop = await alternate([
    { name: 'node -e 0 (in the sid root)', run: () => timeRun(inRoot(`${sq(node!)} -e 0`), { env: rootEnv(env) }) },
    { name: 'xpu-setup no-op over the installed driver set (in the sid root)', run: () => timeRun(inRoot(cli(...coldArgs(N))), { env: rootEnv(env) }) },
    { name: 'xpu-setup no-op answered by the CLI (XPU_SETUP_QUICK=0, in the sid root)', run: () => timeRun(inRoot(`XPU_SETUP_QUICK=0 ${cli(...coldArgs(N))}`), { env: rootEnv(env) }) },
  ], N);
  await writeColdAndNoop('gpu-driver-sid', {
    rounds: N,
    method: "alternating rounds, medians; wall and CPU (user+sys of the process tree) from bash time around scripts/in-root.sh (the same set-up on each side); both fetch through the sid root's apt",
    archives,
    cold: results,
    noop,
    peakRssKiB: { floor: floorRss.kib, cold: coldRss.kib },
  });
});
