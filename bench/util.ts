// Shared benchmark helpers: timing of whole commands, medians, and the results file.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../src/smoke/index.js';

export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

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

export async function writeResults(name: string, doc: Record<string, unknown>): Promise<string> {
  await fs.mkdir(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  await fs.writeFile(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, ...doc }, null, 2) + '\n');
  return file;
}
