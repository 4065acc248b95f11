// Benchmark: xpu-setup cold / warm-cache / no-op against peers fetching the same archives from the same local index.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { BIN, scrubbedEnv, tempDir } from '../test/e2e/cli.js';
import { startFixtureIndex, type FixtureIndex } from '../test/support/index-server.js';
import { row, timeCommand, writeResults, type BenchRow } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 5);
let index: FixtureIndex;
let work: string;

beforeAll(async () => {
  index = await startFixtureIndex();
  work = await tempDir('bench');
});

afterAll(async () => {
  await index?.close();
  await fs.rm(work, { recursive: true, force: true });
});

it('setup: cold, warm cache, no-op; pip and curl|sha256sum|unzip as peers', async () => {
  // The fixture channels serve Debian 12's Level Zero 1.8.12; the shipped floor is 1.9, so these runs lower it.
  const env = scrubbedEnv(path.join(work, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
  const channel = index.condaChannelUrl('bookworm');
  const rows: BenchRow[] = [];
  const cold: number[] = [];
  const warmCache: number[] = [];
  const noop: number[] = [];
  for (let i = 0; i < N; i++) {
    const prefix = path.join(work, `p${i}`);
    const cache = path.join(work, `c${i}`);
    const args = [BIN, '--prefix', prefix, '--cache-dir', cache, '--conda-channel', channel, '--quiet'];
    cold.push(await timeCommand(process.execPath, args, { env }));
    noop.push(await timeCommand(process.execPath, args, { env }));
    await fs.rm(prefix, { recursive: true });
    warmCache.push(await timeCommand(process.execPath, args, { env }));
  }
  rows.push(row('xpu-setup cold (L0 conda + UR wheel: plan, fetch, verify, install)', cold));
  rows.push(row('xpu-setup warm cache, new prefix', warmCache));
  rows.push(row('xpu-setup no-op (receipt verified)', noop));

  // The same archives, fetched and unpacked by hand: curl | tee | sha256sum, then unzip / zstd | tar.
  // Async on purpose: the index server lives in this process and must keep answering.
  const planned = JSON.parse((await execa(process.execPath, [BIN, 'plan', '--conda-channel', channel, '--json'], { env, extendEnv: false })).stdout);
  const archives = planned.components.flatMap((c: { archives: { url: string; filename: string }[] }) => c.archives);
  if (!archives.every((a: { url: string }) => a.url.startsWith(index.url))) throw new Error(`the plan left the local index: ${JSON.stringify(archives)}`);
  const script = archives.map((a: { url: string; filename: string }, i: number) => {
    const f = `"$D/${a.filename}"`;
    const unpack = a.filename.endsWith('.conda')
      ? `unzip -p ${f} 'pkg-*.tar.zst' | zstd -dq | tar -x -C "$D/x${i}"`
      : `unzip -qo ${f} -d "$D/x${i}"`;
    return `mkdir -p "$D/x${i}" && curl -sf '${a.url}' | tee ${f} | sha256sum >/dev/null && ${unpack}`;
  }).join(' && ');
  const peer: number[] = [];
  for (let i = 0; i < N; i++) {
    const d = path.join(work, `curl${i}`);
    await fs.mkdir(d);
    peer.push(await timeCommand('sh', ['-c', `D='${d}'; ${script}`]));
  }
  rows.push(row('peer: curl | sha256sum | unzip (same archives, sequential, no checks against the index)', peer));

  // pip as a peer for the UR wheel alone: download + hash check, no install.
  const pip: number[] = [];
  const urOnly: number[] = [];
  for (let i = 0; i < N; i++) {
    pip.push(await timeCommand('python3', ['-m', 'pip', 'download', '-q', '--no-deps', '--no-cache-dir', '--disable-pip-version-check', '--index-url', index.simpleUrl, '-d', path.join(work, `pip${i}`), 'intel-cmplr-lib-ur']));
    urOnly.push(await timeCommand(process.execPath, [BIN, '--prefix', path.join(work, `ur${i}`), '--cache-dir', path.join(work, `urc${i}`), '--component', 'unified-runtime', '--source', 'pypi', '--quiet'], { env }));
  }
  rows.push(row('pip download --no-deps intel-cmplr-lib-ur', pip));
  rows.push(row('xpu-setup --component unified-runtime (download, verify, install)', urOnly));

  // The floor every xpu-setup row pays: starting Node and loading the CLI.
  const start: number[] = [];
  for (let i = 0; i < N; i++) start.push(await timeCommand(process.execPath, [BIN, '--version'], { env }));
  rows.push(row('xpu-setup --version (process start floor)', start));

  const ratios = {
    coldVsCurl: +(rows[0]!.medianMs / rows[3]!.medianMs).toFixed(2),
    urVsPip: +(rows[5]!.medianMs / rows[4]!.medianMs).toFixed(2),
  };
  const file = await writeResults('setup', { runs: N, rows, ratios, archives: archives.map((a: { filename: string }) => a.filename) });
  console.log(rows.map((r) => `${String(r.medianMs).padStart(6)} ms  ${r.name}`).join('\n'));
  console.log(`ratios: ${JSON.stringify(ratios)}\nwritten to ${file}`);
});
