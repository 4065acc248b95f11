// The real side effects behind the Deps seam (processes, files, clock, the network's reach); only entry points and tests build one.
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs/promises';
import type { Deps, Exec, ExecOptions, ExecResult, ReachAnswer } from '../base/deps.js';
import { EnvVars } from '../base/env-names.js';
import { MACHINE_FILE, readSafelyOrNone } from '../base/safe-read.js';
import { nodeLayout } from '../platform/index.js';

/** Output past this (stdout and stderr each) is a runaway program, not an answer: it is stopped, not held in memory. */
const MAX_OUTPUT = 16 * 1024 * 1024;
/** A program that ignores SIGTERM after its time is up is killed this much later. */
const KILL_AFTER_MS = 5000;
/** After the program itself exited, how long what it started may keep its output open before the group is stopped. */
const LINGER_MS = 2000;

function commandLine(file: string, args: string[]): string {
  return [file, ...args].join(' ');
}

/** Process groups of programs still running: stopped when this process ends, however it ends. */
const liveGroups = new Set<number>();
let groupsTrapped = false;

/**
 * A program in a group of its own does not get the terminal's Ctrl-C: this process passes the signal on, and ends as
 * it would have without the listener (unless another listener, the lock's, ends it itself).
 */
function trapGroups(): void {
  if (groupsTrapped) return;
  groupsTrapped = true;
  const killAll = (sig: NodeJS.Signals) => {
    for (const pid of liveGroups) {
      try {
        process.kill(-pid, sig);
      } catch {
        // gone already
      }
    }
  };
  process.on('exit', () => killAll('SIGKILL'));
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.on(sig, () => {
      killAll(sig);
      if (process.listenerCount(sig) === 1) process.exit(code);
    });
  }
}

function outputCap(env: Record<string, string | undefined>): number {
  const v = Number(env[EnvVars.XPU_SETUP_MAX_CHILD_OUTPUT]);
  return Number.isFinite(v) && v > 0 ? v : MAX_OUTPUT;
}

/**
 * Runs a program without a shell and collects its output as text. Never rejects: a program that cannot start, runs
 * out of time, is killed by a signal or floods its output comes back with `failedToStart` saying which. Where the
 * platform has process groups the program gets its own, and is stopped as a group: at its time limit, on a flood,
 * and when it exited but something it started still holds its output open.
 */
export const realExec: Exec = async (file, args, opts: ExecOptions = {}) => {
  // Loaded by the first program run: commands that run none do not pay for node:child_process.
  const { spawn } = await import('node:child_process');
  const group = nodeLayout(process.platform).processGroups;
  const cap = outputCap(process.env);
  return new Promise<ExecResult>((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const sizes = { out: 0, err: 0 };
    let stopped: string | undefined;
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        windowsHide: true,
        detached: group,
      });
    } catch (e) {
      resolve({ exitCode: -1, stdout: '', stderr: '', failedToStart: (e as Error).message });
      return;
    }
    const pid = child.pid;
    if (group && pid) {
      trapGroups();
      liveGroups.add(pid);
    }
    const signal = (sig: NodeJS.Signals) => {
      try {
        if (group && child.pid) process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // the group is gone already
      }
    };
    const stop = (why: string) => {
      if (stopped !== undefined) return;
      stopped = why;
      signal('SIGTERM');
      setTimeout(() => signal('SIGKILL'), KILL_AFTER_MS).unref();
    };
    const timer = opts.timeoutMs ? setTimeout(() => stop(`Command timed out after ${opts.timeoutMs} milliseconds: ${commandLine(file, args)}`), opts.timeoutMs) : undefined;
    const collect = (into: Buffer[], which: 'out' | 'err') => (chunk: Buffer) => {
      if (stopped !== undefined) return;
      sizes[which] += chunk.length;
      if (sizes[which] > cap) {
        // Nothing more is read: the pipes are closed with the group.
        child.stdout!.destroy();
        child.stderr!.destroy();
        return stop(`Command printed more than ${cap} bytes (${EnvVars.XPU_SETUP_MAX_CHILD_OUTPUT}): ${commandLine(file, args)}`);
      }
      into.push(chunk);
    };
    child.stdout!.on('data', collect(out, 'out'));
    child.stderr!.on('data', collect(err, 'err'));
    // A program that exits without reading its input closes the pipe; that is its answer, not an error here.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input);
    let spawnError: Error | undefined;
    child.on('error', (e) => (spawnError ??= e));
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let linger: NodeJS.Timeout | undefined;
    const finish = () => {
      if (pid) liveGroups.delete(pid);
      if (timer) clearTimeout(timer);
      if (linger) clearTimeout(linger);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      const { code, signal: sig } = exited ?? { code: null, signal: null };
      const failed = spawnError?.message ?? stopped ?? (sig ? `Command was killed with ${sig}: ${commandLine(file, args)}` : undefined);
      resolve(failed !== undefined || code === null ? { exitCode: -1, stdout, stderr, failedToStart: failed ?? 'no exit code' } : { exitCode: code, stdout, stderr });
    };
    child.on('exit', (code, sig) => {
      exited = { code, signal: sig };
      // What the program started and left running holds the pipes open: its group is stopped, and the answer is the program's.
      linger = setTimeout(() => {
        signal('SIGKILL');
        child.stdout!.destroy();
        child.stderr!.destroy();
        finish();
      }, LINGER_MS);
      linger.unref();
    });
    child.on('close', (code, sig) => {
      exited ??= { code, signal: sig };
      finish();
    });
  });
};

export function realDeps(): Deps {
  return {
    platform: process.platform,
    arch: process.arch,
    // The HTTP client loads when the network is first asked, not at start; one client for the check of one URL.
    reach: async (url, timeoutMs, env) => {
      const { Http } = await import('../net/http.js');
      const r = await new Http(env).reach(url, timeoutMs);
      const out: ReachAnswer = { ok: r.ok };
      if (r.status !== undefined) out.status = r.status;
      if (r.error) out.error = { message: r.error.message, code: r.error.code, details: r.error.details };
      return out;
    },
    env: process.env,
    exec: realExec,
    readFile: async (p, kind = MACHINE_FILE) => (await readSafelyOrNone(p, kind))?.toString('utf8'),
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
    sha256: (p) => import('../cache/store.js').then((m) => m.sha256File(p)).catch(() => undefined),
    isSymlink: (p) => fs.lstat(p).then((s) => s.isSymbolicLink(), () => false),
    now: () => Date.now(),
    started: { node: process.execPath, script: process.argv[1] },
  };
}
