// Shared benchmark helpers: timing of whole commands (wall and CPU), alternating runs, medians, the results file.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { median } from '../src/smoke/index.js';
import { tempDir } from '../test/e2e/cli.js';

export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

/** A work directory of one benchmark file (`path`), made before its runs and removed after them. */
export function benchWorkDir(name: string): { readonly path: string } {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await tempDir(name);
  });
  afterAll(() => (dir ? fs.rm(dir, { recursive: true, force: true }) : undefined));
  return {
    get path(): string {
      if (!dir) throw new Error(`${name}: the work directory is made before the runs`);
      return dir;
    },
  };
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Exit codes that count as success (default [0]); probe and doctor exit 1 on a machine without a GPU. */
  okCodes?: number[];
}

export interface Timing {
  wallMs: number;
  /** user + system CPU of the command and its children (bash's `time`, getrusage, millisecond resolution). */
  cpuMs: number;
  /** What the command wrote to stderr. */
  stderr?: string;
}

/**
 * Runs one command under bash's `time` (getrusage of the children: CPU to the millisecond, unlike GNU time's 10 ms);
 * wall time is bash's own, so the measuring process's scheduling does not count. Fails on a non-zero exit.
 */
export async function timeRun(cmd: string[], opts: RunOptions = {}): Promise<Timing> {
  // The stderr file is an argument, not a variable: the command runs in the environment it was given, the same each round.
  const script = 'err=$1; shift; TIMEFORMAT="%3R %3U %3S"; { time "$@" >/dev/null 2>"$err"; } 2>&1; echo "exit=$?"';
  const errFile = path.join(await fs.mkdtemp(path.join(process.env.TMPDIR ?? '/tmp', 'xpu-bench-')), 'stderr');
  const env = opts.env ?? (process.env as Record<string, string>);
  const r = await execa('bash', ['-c', script, 'bench', errFile, ...cmd], { env, extendEnv: false, cwd: opts.cwd, reject: false });
  const stderr = await fs.readFile(errFile, 'utf8').catch(() => '');
  await fs.rm(path.dirname(errFile), { recursive: true, force: true });
  const out = String(r.stdout).trim().split('\n');
  const code = Number(/^exit=(\d+)$/.exec(out.pop() ?? '')?.[1] ?? -1);
  if (r.exitCode !== 0 || !(opts.okCodes ?? [0]).includes(code)) throw new Error(`${cmd.join(' ')} failed (${code}): ${stderr.slice(-2000)}`);
  const [real, user, sys] = (out.pop() ?? '').trim().split(/\s+/).map(Number);
  return { wallMs: real! * 1000, cpuMs: (user! + sys!) * 1000, stderr };
}

/** Peak resident memory (KiB) of a command, through GNU time (Debian package `time`). */
export async function peakRssKiB(cmd: string[], opts: RunOptions = {}): Promise<{ kib: number; wallMs: number }> {
  const t0 = process.hrtime.bigint();
  const r = await execa('/usr/bin/time', ['-f', '%M', ...cmd], { env: opts.env, extendEnv: opts.env === undefined, cwd: opts.cwd, reject: false });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.exitCode !== 0) throw new Error(`${cmd.join(' ')} failed (${r.exitCode}): ${String(r.stderr).slice(-2000)}`);
  return { kib: Number(String(r.stderr).trim().split('\n').pop()), wallMs };
}

export interface Case {
  name: string;
  /** Runs once; `i` is the round, for fresh directories. */
  run(i: number): Promise<Timing>;
  /** Runs before each measured run, untimed (e.g. removing the previous prefix). */
  before?(i: number): Promise<void>;
}

export interface CaseResult {
  name: string;
  wallMs: number[];
  cpuMs: number[];
  medianWallMs: number;
  medianCpuMs: number;
}

/**
 * Every case once per round, rounds repeated: on a shared, loaded machine each case sees the same load as the others
 * in the same round, so ratios between cases mean more than any one time.
 */
export async function alternate(cases: Case[], rounds: number): Promise<CaseResult[]> {
  const wall = cases.map(() => [] as number[]);
  const cpu = cases.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++) {
    for (const [k, c] of cases.entries()) {
      await c.before?.(i);
      const t = await c.run(i);
      wall[k]!.push(t.wallMs);
      cpu[k]!.push(t.cpuMs);
    }
  }
  return cases.map((c, k) => ({
    name: c.name,
    wallMs: wall[k]!.map(Math.round),
    cpuMs: cpu[k]!.map(Math.round),
    medianWallMs: Math.round(median(wall[k]!)),
    medianCpuMs: Math.round(median(cpu[k]!)),
  }));
}

export function ratio(a: number, b: number): number {
  return +(a / b).toFixed(2);
}

/**
 * Writes and prints the results of a driver-set benchmark: its cold rows (a case named `floor...` and one `xpu-setup
 * cold...`), its no-op rows (`node -e 0...` and `xpu-setup no-op...`), the peak memory of each cold side, and their ratios.
 */
export async function writeColdAndNoop(name: string, doc: { rounds: number; method: string; archives: { filename: string; size?: number }[]; cold: CaseResult[]; noop: CaseResult[]; peakRssKiB: { floor: number; cold: number } }): Promise<void> {
  const all = [...doc.cold, ...doc.noop];
  const by = (prefix: string) => all.find((r) => r.name.startsWith(prefix))!;
  const ratios = {
    coldVsFloorWall: ratio(by('xpu-setup cold').medianWallMs, by('floor').medianWallMs),
    coldVsFloorCpu: ratio(by('xpu-setup cold').medianCpuMs, by('floor').medianCpuMs),
    coldVsFloorPeakRss: ratio(doc.peakRssKiB.cold, doc.peakRssKiB.floor),
    noopVsNodeWall: ratio(by('xpu-setup no-op').medianWallMs, by('node -e 0').medianWallMs),
    noopVsNodeCpu: ratio(by('xpu-setup no-op').medianCpuMs, by('node -e 0').medianCpuMs),
    noopCliVsNodeWall: ratio(by('xpu-setup no-op answered by the CLI').medianWallMs, by('node -e 0').medianWallMs),
    noopCliVsNodeCpu: ratio(by('xpu-setup no-op answered by the CLI').medianCpuMs, by('node -e 0').medianCpuMs),
  };
  const file = await writeResults(name, {
    rounds: doc.rounds,
    method: doc.method,
    archives: doc.archives.map((a) => ({ filename: a.filename, size: a.size })),
    results: all,
    peakRssKiB: doc.peakRssKiB,
    ratios,
  });
  console.log(all.map((r) => `${String(r.medianWallMs).padStart(6)} ms wall ${String(r.medianCpuMs).padStart(6)} ms cpu  ${r.name}`).join('\n'));
  console.log(`ratios: ${JSON.stringify(ratios)}\nwritten to ${file}`);
}

export async function timeCommand(file: string, args: string[], opts: { env?: Record<string, string>; cwd?: string; shell?: boolean } = {}): Promise<number> {
  const t0 = process.hrtime.bigint();
  const r = await execa(file, args, { env: opts.env, extendEnv: opts.env === undefined, cwd: opts.cwd, reject: false, shell: opts.shell });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.exitCode !== 0) throw new Error(`${file} ${args.join(' ')} failed (${r.exitCode}): ${String(r.stderr).slice(-2000)}`);
  return ms;
}

export { median } from '../src/smoke/index.js';

export interface BenchRow {
  name: string;
  runs: number[];
  medianMs: number;
}

export function row(name: string, runs: number[]): BenchRow {
  return { name, runs: runs.map((r) => Math.round(r)), medianMs: Math.round(median(runs)) };
}

/** Where the machine stood while a benchmark ran: core count and load, quoted with every result. */
export async function machine(): Promise<Record<string, unknown>> {
  const os = await import('node:os');
  return { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadavg: os.loadavg().map((l) => +l.toFixed(2)), memGiB: +(os.totalmem() / 2 ** 30).toFixed(1) };
}

export async function writeResults(name: string, doc: Record<string, unknown>): Promise<string> {
  await fs.mkdir(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  await fs.writeFile(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, machine: await machine(), ...doc }, null, 2) + '\n');
  return file;
}
