// The quick answer of a setup run that changes nothing. A run that found its prefix up to date, from a plan it reused
// and without starting a program, keeps what it printed together with everything its answer was read from: each file,
// directory and link it looked at, the prefix's files as the receipt records them, the command line, the directory,
// the whole environment. The same command run again answers from that record without loading the CLI, while every
// one of those looks still gives what it gave and the plan is still within its reuse time; anything else, or any doubt,
// runs the CLI as usual. bin/xpu-setup.js asks (answerQuickly, from its own small bundle); setup records (recordQuick).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { EnvVars } from '../base/env-names.js';
import { optionArgs, optionValue } from '../base/option-scan.js';
import { libcPathFromMaps } from '../platform/linux.js';
import { defaultCacheDir, expandHome } from '../platform/index.js';

/** The cache's directory of records, one per command line, directory and environment. */
export const ANSWERS_DIR = 'answers';

/** Raised when a record's shape changes: one of another schema is not read. */
const SCHEMA = 1;

/** A file's identity as stat gives it: size, modification and change time, inode (any write moves the change time). */
type Mark = [size: number, mtimeMs: number, ctimeMs: number, ino: number];

/** One look the recorded run took, with what it saw; the quick answer holds while each looks the same. */
export type Seen =
  | { k: 'text'; p: string; v: string | null }
  | { k: 'dir'; p: string; v: string[] | null }
  | { k: 'link'; p: string; v: string | null }
  | { k: 'real'; p: string; v: string | null }
  | { k: 'exists'; p: string; v: boolean }
  | { k: 'symlink'; p: string; v: boolean }
  | { k: 'access'; p: string; v: string | null }
  /** A file by its stat (followed): its bytes were hashed, its group read, or it was read outside Deps. */
  | { k: 'mark'; p: string; v: Mark | null }
  /** The C library named in /proc/self/maps (the one part of it detection uses), by its stat. */
  | { k: 'libc'; v: string | null; mark: Mark | null }
  /** A prefix file as the receipt records it (the no-op check's size and mtime), or the link it is. */
  | { k: 'held'; p: string; size?: number; mtimeMs?: number; link?: string }
  /** A directory of the prefix: still a directory, not a link to one. */
  | { k: 'isdir'; p: string }
  /** A file by size and mtime (followed), as a probe's fingerprint marks it (probe/inputs.ts). */
  | { k: 'sized'; p: string; v: [size: number, mtimeMs: number] | null }
  /** A device node's mode and owner. */
  | { k: 'owner'; p: string; v: [mode: number, uid: number, gid: number] | null };

/** The looks a stage that reads outside Deps reports for a quick answer's record (probe/inputs.ts). */
export type Look = Extract<Seen, { k: 'sized' | 'owner' | 'dir' }>;

export interface QuickRecord {
  schema: number;
  /** The bundle's content key (its first line), Node's version, binary and platform: other code answers otherwise. */
  code: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The user and groups. */
  who: string;
  /** The prefix, which the prefix's files are named under. */
  prefix: string;
  /** When the reused plan was made, and how long plans are reused: the CLI reuses it while its age is within that. */
  planMadeAt: number;
  reuseMs: number;
  seen: Seen[];
  /** What the run wrote, in order: 1 stdout, 2 stderr; ELAPSED stands where the run's seconds were. */
  writes: [1 | 2, string][];
}

/** Where the run's seconds stand in a recorded write. */
const ELAPSED = '\u0000';

function markOf(p: string): Mark | null {
  const s = fs.statSync(p, { throwIfNoEntry: false });
  return s ? [s.size, s.mtimeMs, s.ctimeMs, s.ino] : null;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function attempt<T>(f: () => T): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

/**
 * Where the record of this command line is kept: under the cache directory it names (`--cache-dir`, else
 * XPU_SETUP_CACHE_DIR, else the default), read without parsing the rest; a record found elsewhere than the run put it
 * is only not found. The name is a hash of the command line, directory and environment, which the record repeats
 * whole: runs of one command in two environments keep a record each.
 */
export function quickFile(argv: string[], cwd: string, env: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): string {
  const given = optionValue(optionArgs(argv), 'cache-dir');
  const deps = { env, platform };
  const dir = path.resolve(cwd, given !== undefined ? expandHome(given, deps) : defaultCacheDir(deps));
  // FNV-1a, 32 bits twice over: a name, not a check (loading node:crypto takes about 4 ms, a third of this path's own).
  const vars = Object.entries(env).filter((e) => e[1] !== undefined).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const text = JSON.stringify([argv, cwd, vars]);
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193) >>> 0;
    b = Math.imul(b ^ text.charCodeAt(i), 0x811c9dc5) >>> 0;
  }
  return path.join(dir, ANSWERS_DIR, `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}.json`);
}

/**
 * Whether stdout and stderr are plain (a pipe, a file, /dev/null): a terminal gets spinners and widths, which are drawn,
 * not replayed. Told from a stat, without Node's tty module (which loads its socket code): a character device other than
 * /dev/null may be a terminal.
 */
function plainOutput(): boolean {
  const nul = fs.statSync('/dev/null', { throwIfNoEntry: false })?.rdev;
  return [1, 2].every((fd) => {
    const st = attempt(() => fs.fstatSync(fd));
    return !!st && (!st.isCharacterDevice() || (nul !== undefined && st.rdev === nul));
  });
}

/** The user and groups the run was made as. */
function who(): string {
  return JSON.stringify(process.getuid ? [process.getuid(), process.getgid!(), ...(process.getgroups?.() ?? []).sort((x, y) => x - y)] : []);
}

function codeKey(bundleKey: string): string {
  return JSON.stringify([bundleKey, process.version, process.execPath, process.platform, process.arch]);
}

/** Whether one look still gives what it gave. */
function holds(s: Seen, prefix: string): boolean {
  switch (s.k) {
    case 'text':
      return attempt(() => fs.readFileSync(s.p, 'utf8')) === s.v;
    case 'dir': {
      const names = attempt(() => fs.readdirSync(s.p).sort());
      return sameJson(names, s.v);
    }
    case 'link':
      return attempt(() => fs.readlinkSync(s.p)) === s.v;
    case 'real':
      return attempt(() => fs.realpathSync(s.p)) === s.v;
    case 'exists':
      return fs.existsSync(s.p) === s.v;
    case 'symlink':
      return (fs.lstatSync(s.p, { throwIfNoEntry: false })?.isSymbolicLink() ?? false) === s.v;
    case 'access':
      try {
        fs.accessSync(s.p, fs.constants.R_OK | fs.constants.W_OK);
        return s.v === null;
      } catch (e) {
        return ((e as NodeJS.ErrnoException).code ?? 'EACCES') === s.v;
      }
    case 'mark':
      return sameJson(markOf(s.p), s.v);
    case 'libc': {
      const libc = libcPathFromMaps(attempt(() => fs.readFileSync('/proc/self/maps', 'utf8')) ?? '') ?? null;
      return libc === s.v && sameJson(libc ? markOf(libc) : null, s.mark);
    }
    case 'held': {
      const abs = path.join(prefix, ...s.p.split('/'));
      if (s.link !== undefined) return attempt(() => fs.readlinkSync(abs)) === s.link;
      const st = fs.lstatSync(abs, { throwIfNoEntry: false });
      return !!st && !st.isSymbolicLink() && st.size === s.size && st.mtimeMs === s.mtimeMs;
    }
    case 'sized': {
      const st = fs.statSync(s.p, { throwIfNoEntry: false });
      return sameJson(st ? [st.size, st.mtimeMs] : null, s.v);
    }
    case 'owner': {
      const st = attempt(() => fs.statSync(s.p));
      return sameJson(st ? [st.mode, st.uid, st.gid] : null, s.v);
    }
    case 'isdir': {
      const st = fs.lstatSync(path.join(prefix, ...s.p.split('/')), { throwIfNoEntry: false });
      return !!st && st.isDirectory();
    }
  }
}

/** Writes all of `text` to a descriptor that may be a non-blocking pipe. */
function writeAll(fd: number, text: string): void {
  let buf = Buffer.from(text);
  while (buf.length) {
    try {
      buf = buf.subarray(fs.writeSync(fd, buf));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}

/**
 * Answers this command from its record when everything the record was read from still reads the same: writes what the
 * recorded run wrote (its seconds replaced by this run's) and returns the exit code. Undefined when there is no record
 * or any part of it no longer holds: then the CLI runs. `bundleKey`: the content key of the bundle that would run.
 */
export function answerQuickly(argv: string[], bundleKey: string): number | undefined {
  const env = process.env;
  if (env[EnvVars.XPU_SETUP_QUICK] === '0') return undefined;
  const cwd = process.cwd();
  const text = attempt(() => fs.readFileSync(quickFile(argv, cwd, env), 'utf8'));
  const r = text === null ? null : attempt(() => JSON.parse(text) as QuickRecord);
  const age = r ? Date.now() - r.planMadeAt : NaN;
  if (!r || r.schema !== SCHEMA || r.code !== codeKey(bundleKey) || !(age >= 0 && age < r.reuseMs)) return undefined;
  if (!sameJson(r.argv, argv) || r.cwd !== cwd || r.who !== who() || !plainOutput()) return undefined;
  const keys = Object.keys(env);
  if (keys.length !== Object.keys(r.env).length || keys.some((k) => r.env[k] !== env[k])) return undefined;
  if (!r.seen.every((s) => holds(s, r.prefix))) return undefined;
  const seconds = process.uptime().toFixed(1);
  try {
    for (const [fd, w] of r.writes) writeAll(fd, w.replaceAll(ELAPSED, seconds));
  } catch (e) {
    // Once anything is written, the answer is given: a reader that went away is not an error, as in the CLI.
    return (e as NodeJS.ErrnoException).code === 'EPIPE' ? 0 : 1;
  }
  return 0;
}

/**
 * Removes the records no run can be answered from any more: written longer ago than a plan is reused (each one's plan
 * was made before it was written), and what a killed run left half-written.
 */
function pruneRecords(dir: string, reuseMs: number): void {
  const now = Date.now();
  for (const n of attempt(() => fs.readdirSync(dir)) ?? []) {
    const f = path.join(dir, n);
    const st = fs.statSync(f, { throwIfNoEntry: false });
    if (st && now - st.mtimeMs > reuseMs) fs.rmSync(f, { force: true });
  }
}

/** What setup hands the recorder once its run is done. */
export interface QuickOutcome {
  prefix: string;
  /** The reused plan's time (InstallPlan.reusedFrom) and how long plans are reused. */
  planMadeAt: string;
  reuseMs: number;
  files: { path: string; size?: number; mtimeMs?: number; link?: string }[];
  /** What the run read outside Deps besides `first` (a replayed probe answer's fingerprint), as it read it. */
  looked?: Look[];
  /** The seconds as the run printed them. */
  elapsed: string;
}

/** What main hands a command run from bin/xpu-setup.js: the command line and the bundle's content key. */
export interface QuickEntry {
  argv: string[];
  bundleKey: string;
}

/** A setup run being recorded: the Deps that note its looks, and the end of the recording (with or without a record). */
export interface QuickRecorder {
  deps: Deps;
  /** Writes the record, unless the run started a program or reached a server, or the plan's reuse time is over. */
  keep(o: QuickOutcome): Promise<void>;
  /** The run used something the record cannot look at again (the network, say): it keeps no record. */
  spoil(): void;
  stop(): void;
}

/**
 * Records a setup run for a quick answer: `deps` notes every look and makes any program or reach spoil the record;
 * stdout and stderr are teed. `first`: what the run reads outside Deps (files, and directories with their files), each
 * looked at by its stat before the run reads it. `keep` writes the record; `stop` only stops recording.
 */
export function recordQuick(entry: QuickEntry, deps: Deps, first: { files: string[]; dirs: string[] }): QuickRecorder | undefined {
  if (process.env[EnvVars.XPU_SETUP_QUICK] === '0' || !plainOutput()) return undefined;
  const inDirs = first.dirs.flatMap((d) => [d, ...(attempt(() => fs.readdirSync(d)) ?? []).sort().map((n) => path.join(d, n))]);
  const seen: Seen[] = [...first.files, ...inDirs].map((p) => ({ k: 'mark', p, v: markOf(p) }));
  const writes: [1 | 2, string][] = [];
  let spoiled = false;
  const tee = ([stream, fd]: [NodeJS.WriteStream, 1 | 2]) => {
    const write = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      if (typeof chunk === 'string') writes.push([fd, chunk]);
      else spoiled = true;
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof stream.write;
    return () => {
      stream.write = write;
    };
  };
  const untee = ([[process.stdout, 1], [process.stderr, 2]] as [NodeJS.WriteStream, 1 | 2][]).map(tee);
  const stop = () => untee.forEach((u) => u());
  /** Notes what a look saw and passes it on. */
  const saw = <T>(v: T, s: Seen): T => {
    seen.push(s);
    return v;
  };
  /** A file whose bytes or owner the run reads, by its stat taken before the read. */
  const marking = (p: string): void => void seen.push({ k: 'mark', p, v: markOf(p) });
  const recorded: Deps = {
    ...deps,
    exec: async (...a) => {
      spoiled = true;
      return deps.exec(...a);
    },
    ...(deps.reach ? { reach: async (...a: Parameters<NonNullable<Deps['reach']>>) => ((spoiled = true), deps.reach!(...a)) } : {}),
    readFile: async (p, kind) => {
      // Of the process's map, detection reads only where the C library is: that library is what the answer rests on.
      const libc = p === '/proc/self/maps';
      const v = await deps.readFile(p, kind);
      const named = libc ? ((v && libcPathFromMaps(v)) ?? null) : null;
      return saw(v, libc ? { k: 'libc', v: named, mark: named ? markOf(named) : null } : { k: 'text', p, v: v ?? null });
    },
    readDir: async (p) => {
      const v = await deps.readDir(p);
      return saw(v, { k: 'dir', p, v: v ? [...v].sort() : null });
    },
    readLink: async (p) => {
      const v = await deps.readLink(p);
      return saw(v, { k: 'link', p, v: v ?? null });
    },
    realpath: async (p) => {
      const v = await deps.realpath(p);
      return saw(v, { k: 'real', p, v: v ?? null });
    },
    exists: async (p) => {
      const v = await deps.exists(p);
      return saw(v, { k: 'exists', p, v });
    },
    isSymlink: async (p) => {
      const v = await deps.isSymlink(p);
      return saw(v, { k: 'symlink', p, v });
    },
    accessRW: async (p) => {
      const v = await deps.accessRW(p);
      return saw(v, { k: 'access', p, v: v ?? null });
    },
    statGid: async (p) => (marking(p), deps.statGid(p)),
    sha256: async (p) => (marking(p), deps.sha256(p)),
  };
  return {
    deps: recorded,
    stop,
    spoil: () => void (spoiled = true),
    async keep(o) {
      stop();
      const planMadeAt = Date.parse(o.planMadeAt);
      const age = Date.now() - planMadeAt;
      if (spoiled || !(age >= 0 && age < o.reuseMs) || o.files.some((f) => f.link === undefined && f.mtimeMs === undefined)) return;
      const dirs = new Set<string>();
      for (const f of o.files) for (let d = path.posix.dirname(f.path); d !== '.'; d = path.posix.dirname(d)) dirs.add(d);
      const record: QuickRecord = {
        schema: SCHEMA,
        code: codeKey(entry.bundleKey),
        argv: entry.argv,
        cwd: process.cwd(),
        env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
        who: who(),
        prefix: o.prefix,
        planMadeAt,
        reuseMs: o.reuseMs,
        seen: [
          { k: 'real', p: o.prefix, v: attempt(() => fs.realpathSync(o.prefix)) },
          { k: 'symlink', p: o.prefix, v: false },
          ...seen,
          ...(o.looked ?? []),
          ...[...dirs].sort().map((p): Seen => ({ k: 'isdir', p })),
          ...o.files.map((f): Seen => (f.link !== undefined ? { k: 'held', p: f.path, link: f.link } : { k: 'held', p: f.path, size: f.size, mtimeMs: f.mtimeMs })),
        ],
        writes: writes.map(([fd, w]) => [fd, w.replace(`done in ${o.elapsed} s.`, `done in ${ELAPSED} s.`).replace(`"seconds": ${Number(o.elapsed)},`, `"seconds": ${ELAPSED},`)]),
      };
      // A file touched since it was installed passes the CLI's check by its bytes, never the record's by its mtime.
      if (!record.seen.every((look) => holds(look, record.prefix))) return;
      const file = quickFile(entry.argv, record.cwd, process.env);
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        pruneRecords(path.dirname(file), o.reuseMs);
        fs.writeFileSync(tmp, JSON.stringify(record));
        fs.renameSync(tmp, file);
      } catch {
        // A record not kept costs the next run its full time, nothing else.
        fs.rmSync(tmp, { force: true });
      }
    },
  };
}
