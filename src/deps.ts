// Side effects enter core code through this object, so platform logic (Windows included) can run in tests on Linux.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started at all (ENOENT, EACCES). */
  failedToStart?: string;
}

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  input?: string;
}

export type Exec = (file: string, args: string[], opts?: ExecOptions) => Promise<ExecResult>;

export interface Deps {
  platform: NodeJS.Platform;
  arch: string;
  env: Record<string, string | undefined>;
  exec: Exec;
  readFile(path: string): Promise<string | undefined>;
  readDir(path: string): Promise<string[] | undefined>;
  readLink(path: string): Promise<string | undefined>;
  exists(path: string): Promise<boolean>;
  now(): number;
}

export const realExec: Exec = async (file, args, opts = {}) => {
  try {
    const r = await execa(file, args, {
      cwd: opts.cwd,
      env: opts.env,
      extendEnv: opts.env === undefined,
      timeout: opts.timeoutMs,
      input: opts.input,
      reject: false,
      stripFinalNewline: false,
    });
    if (r.failed && r.exitCode === undefined) {
      return { exitCode: -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), failedToStart: r.shortMessage };
    }
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  } catch (e) {
    return { exitCode: -1, stdout: '', stderr: '', failedToStart: (e as Error).message };
  }
};

export function realDeps(): Deps {
  return {
    platform: process.platform,
    arch: process.arch,
    env: process.env,
    exec: realExec,
    readFile: (p) => fs.readFile(p, 'utf8').catch(() => undefined),
    readDir: (p) => fs.readdir(p).catch(() => undefined),
    readLink: (p) => fs.readlink(p).catch(() => undefined),
    exists: (p) => fs.access(p).then(() => true, () => false),
    now: () => Date.now(),
  };
}
