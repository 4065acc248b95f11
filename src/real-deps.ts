// The real side effects behind the Deps seam (processes, files, clock, the network's reach); only entry points and tests build one.
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs/promises';
import type { Deps, Exec, ExecOptions, ExecResult, ReachAnswer } from './deps.js';

/** Output past this is a runaway program, not an answer: it is stopped rather than held in memory. */
const MAX_OUTPUT = 64 * 1024 * 1024;
/** A program that ignores SIGTERM after its time is up is killed this much later. */
const KILL_AFTER_MS = 5000;

function commandLine(file: string, args: string[]): string {
  return [file, ...args].join(' ');
}

/**
 * Runs a program without a shell and collects its output as text. Never rejects: a program that cannot start, runs
 * out of time, is killed by a signal or floods its output comes back with `failedToStart` saying which.
 */
export const realExec: Exec = async (file, args, opts: ExecOptions = {}) => {
  // Loaded by the first program run: commands that run none do not pay for node:child_process.
  const { spawn } = await import('node:child_process');
  return new Promise<ExecResult>((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let stopped: string | undefined;
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (e) {
      resolve({ exitCode: -1, stdout: '', stderr: '', failedToStart: (e as Error).message });
      return;
    }
    const stop = (why: string) => {
      if (stopped !== undefined) return;
      stopped = why;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS).unref();
    };
    const timer = opts.timeoutMs ? setTimeout(() => stop(`Command timed out after ${opts.timeoutMs} milliseconds: ${commandLine(file, args)}`), opts.timeoutMs) : undefined;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_OUTPUT) return stop(`Command printed more than ${MAX_OUTPUT} bytes: ${commandLine(file, args)}`);
      into.push(chunk);
    };
    child.stdout!.on('data', collect(out));
    child.stderr!.on('data', collect(err));
    // A program that exits without reading its input closes the pipe; that is its answer, not an error here.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input);
    let spawnError: Error | undefined;
    child.on('error', (e) => (spawnError ??= e));
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      const failed = spawnError?.message ?? stopped ?? (signal ? `Command was killed with ${signal}: ${commandLine(file, args)}` : undefined);
      resolve(failed !== undefined || code === null ? { exitCode: -1, stdout, stderr, failedToStart: failed ?? 'no exit code' } : { exitCode: code, stdout, stderr });
    });
  });
};

export function realDeps(): Deps {
  return {
    platform: process.platform,
    arch: process.arch,
    // The HTTP client loads when the network is first asked, not at start.
    reach: async (url, timeoutMs, env) => {
      const r = await (await import('./net/http.js')).httpFor(env).reach(url, timeoutMs);
      const out: ReachAnswer = { ok: r.ok };
      if (r.status !== undefined) out.status = r.status;
      if (r.error) out.error = { message: r.error.message, code: r.error.code, details: r.error.details };
      return out;
    },
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
    started: { node: process.execPath, script: process.argv[1] },
  };
}
