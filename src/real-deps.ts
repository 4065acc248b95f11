// The real side effects behind the Deps seam (processes, files, clock); only entry points and tests build one.
import * as fs from 'node:fs/promises';
import type { Deps, Exec } from './deps.js';

export const realExec: Exec = async (file, args, opts = {}) => {
  try {
    // execa is loaded by the first command run, so paths that run none do not pay for it.
    const { execa } = await import('execa');
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
    accessRW: (p) => fs.access(p, fs.constants.R_OK | fs.constants.W_OK).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e.code ?? 'EACCES',
    ),
    statGid: (p) => fs.stat(p).then((s) => s.gid, () => undefined),
    realpath: (p) => fs.realpath(p).catch(() => undefined),
    // The hashing module (and node:crypto behind it) loads on the first hash, not for every command.
    sha256: (p) => import('./cache/store.js').then((m) => m.sha256File(p)).catch(() => undefined),
    isSymlink: (p) => fs.lstat(p).then((s) => s.isSymbolicLink(), () => false),
    now: () => Date.now(),
  };
}
