// Building the CPU reference driver and running native programs against it through a real Level Zero loader.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execa } from 'execa';
import { repoRoot } from './debs.js';

export const REFDRIVER_SOURCE_DIR = path.join(repoRoot(), 'native', 'refdriver');
export const KERNELS_DIR = path.join(repoRoot(), 'native', 'kernels');

/** The exact command the build stage runs; kept in step with native/refdriver/build.sh. */
export function driverBuildArgs(include: string, out: string): string[] {
  const sources = fs.readdirSync(REFDRIVER_SOURCE_DIR).filter((f) => f.endsWith('.c')).sort().map((f) => path.join(REFDRIVER_SOURCE_DIR, f));
  return ['-std=gnu11', '-shared', '-fPIC', '-O2', '-fvisibility=hidden', `-I${include}`, ...sources, '-o', out, '-lOpenCL', '-ldl', '-lpthread'];
}

/** This process's environment without any Level Zero or xpu-setup setting, temp files and PoCL's cache under `dir`. */
export function driverEnv(dir: string, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('ZE_') && !k.startsWith('XPU_SETUP_')) env[k] = v;
  }
  return { ...env, TMPDIR: dir, POCL_CACHE_DIR: path.join(dir, 'pocl-cache'), ...extra };
}

export interface KeyValueRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  values: Map<string, string>;
}

/** Runs a test program that prints key=value lines. */
export async function runKeyValues(file: string, args: string[], env: Record<string, string>, timeout = 120_000): Promise<KeyValueRun> {
  const r = await execa(file, args, { env, extendEnv: false, reject: false, timeout });
  const values = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, values };
}
