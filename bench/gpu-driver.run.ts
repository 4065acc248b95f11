// Benchmark: a cold install of the GPU driver set from the distribution (Debian 12's compute-runtime 22.43 and the
// packages its Depends add here) against the floor `apt-get download` + `sha256sum` + `dpkg-deb -x` of the same
// archives. Both fetch through the machine's own apt from its archive, so the network is the same for each; alternating
// rounds, medians; ratios are within one run.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { it } from 'vitest';
import { BIN, scrubbedEnv } from '../test/e2e/cli.js';
import { alternate, benchWorkDir, peakRssKiB, timeRun, writeColdAndNoop, type Case } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 5);
const work = benchWorkDir('bench-gpu-driver');

interface Archive {
  url: string;
  filename: string;
  size: number;
}

it('cold install of the GPU driver set from apt against apt-get download | sha256sum | dpkg-deb -x', async () => {
  const env = scrubbedEnv(path.join(work.path, 'home'));
  const args = ['--component', 'gpu-driver', '--source', 'apt'];
  const planned = JSON.parse((await execa(process.execPath, [BIN, 'plan', ...args, '--json'], { env, extendEnv: false })).stdout);
  const archives: Archive[] = planned.components.flatMap((c: { archives?: Archive[] }) => c.archives ?? []);
  const specs = archives.map((a) => a.url.replace(/^apt:/, ''));
  const dir = (name: string, i: number) => path.join(work.path, `${name}${i}`);
  const clean = (...names: string[]) => async (i: number) => {
    for (const n of names) await fs.rm(dir(n, i), { recursive: true, force: true });
  };
  const floor = `apt-get download -q -o APT::Sandbox::User=root ${specs.map((s) => `'${s}'`).join(' ')} >/dev/null && sha256sum *.deb >/dev/null && for d in *.deb; do dpkg-deb -x "$d" x; done`;
  const cases: Case[] = [
    { name: 'floor: apt-get download, sha256sum, dpkg-deb -x (same archives)', before: clean('floor'), run: (i) => fs.mkdir(dir('floor', i), { recursive: true }).then(() => timeRun(['bash', '-c', `cd '${dir('floor', i)}' && ${floor}`])) },
    {
      name: 'xpu-setup cold: plan (apt-cache, Depends), fetch, verify sha256, install (--no-probe)',
      before: clean('cold', 'coldc'),
      run: (i) => timeRun([process.execPath, BIN, ...args, '--prefix', dir('cold', i), '--cache-dir', dir('coldc', i), '--no-probe', '--no-smoke', '--quiet'], { env }),
    },
  ];
  const results = await alternate(cases, N);
  // Peak resident memory, one run each after the timed ones (GNU time: the largest process of the tree).
  await clean('floor', 'cold', 'coldc')(N);
  await fs.mkdir(dir('floor', N), { recursive: true });
  const floorRss = await peakRssKiB(['bash', '-c', `cd '${dir('floor', N)}' && ${floor}`]);
  const coldArgs = [...args, '--prefix', dir('cold', N), '--cache-dir', dir('coldc', N), '--no-probe', '--no-smoke', '--quiet'];
  const coldRss = await peakRssKiB([process.execPath, BIN, ...coldArgs], { env });
  // A re-run over that installed set: the plan made minutes ago is reused, the receipt answers, no archive is read;
  // answered from the record of the first such run (cache/quick-answers.ts), and by the CLI.
  // node -e 0 runs in the same environment: one the caller's NODE_EXTRA_CA_CERTS, say, would slow by a certificate load.
  const noop = await alternate([
    { name: 'node -e 0', run: () => timeRun([process.execPath, '-e', '0'], { env }) },
    { name: 'xpu-setup no-op over the installed driver set', run: () => timeRun([process.execPath, BIN, ...coldArgs], { env }) },
    { name: 'xpu-setup no-op answered by the CLI (XPU_SETUP_QUICK=0)', run: () => timeRun([process.execPath, BIN, ...coldArgs], { env: { ...env, XPU_SETUP_QUICK: '0' } }) },
  ], N);
  await writeColdAndNoop('gpu-driver', {
    rounds: N,
    method: 'alternating rounds, medians; wall and CPU (user+sys of the process tree) from bash time; both fetch through the machine\'s apt',
    archives,
    cold: results,
    noop,
    peakRssKiB: { floor: floorRss.kib, cold: coldRss.kib },
  });
});
