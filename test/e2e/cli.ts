// Runs the built CLI as a process with a scrubbed environment and a temp HOME.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(REPO, 'bin', 'xpu-setup.js');

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The run's peak resident set in KiB, when asked for (`peakRss`). */
  peakRssKb?: number;
}

/**
 * XPU_SETUP_REQUIRE for runs over Debian 12's Level Zero 1.8.12 (the fixture channel `bookworm`): below the shipped
 * floor of 1.9, and too old for UR 2026's adapters (they call what loader 1.25 added), so these runs take UR 2025.
 */
export const DEBIAN_12_STACK = 'level-zero>=1.8,unified-runtime<2026';

/** People's text with each line broken past 200 characters joined again (and any line indented 4 or more), for a match across the break. */
export const joined = (text: string): string => text.replace(/\n {4,}(?=\S)/g, ' ');

export async function tempDir(name: string): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), `xpu-${name}-`));
}

/** Only what a CI job would have: PATH, a fresh HOME, CI=true; nothing from the developer's shell. */
export function scrubbedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CI: 'true', LANG: 'C.UTF-8', ...extra };
}

export async function runCli(args: string[], env: Record<string, string>, opts: { cwd?: string; umask?: string; peakRss?: boolean; timeoutMs?: number } = {}): Promise<CliRun> {
  // A umask is set by the shell that then becomes node, as a container's or CI image's would be.
  let [file, argv] = opts.umask ? ['/bin/sh', ['-c', `umask ${opts.umask} && exec "$0" "$@"`, process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]];
  // GNU time measures the peak resident set of the run (the program's, not this test's).
  const rssFile = opts.peakRss ? path.join(await tempDir('rss'), 'kb') : undefined;
  if (rssFile) [file, argv] = ['/usr/bin/time', ['-f', '%M', '-o', rssFile, file, ...argv]];
  const r = await execa(file, argv, { env, extendEnv: false, reject: false, cwd: opts.cwd ?? REPO, timeout: opts.timeoutMs ?? 300_000 });
  const peakRssKb = rssFile ? Number((await fs.readFile(rssFile, 'utf8').catch(() => '')).trim().split('\n').pop()) : undefined;
  if (rssFile) await fs.rm(path.dirname(rssFile), { recursive: true, force: true });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr), ...(peakRssKb ? { peakRssKb } : {}) };
}

/** Every path under dir, relative, sorted (symlinks not followed). */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(r);
      if (e.isDirectory()) await walk(path.join(d, e.name), r);
    }
  };
  await walk(dir, '');
  return out.sort();
}
