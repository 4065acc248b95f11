// Side effects enter core code through this one object, so platform logic (Windows included) can run in tests on Linux.
import type { ReadKind } from './safe-read.js';

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

/** A short HTTP request's answer: reached (with the status), or the error that says why not. */
export interface ReachAnswer {
  ok: boolean;
  status?: number;
  error?: { message: string; code?: string; details?: Record<string, unknown> };
}

export interface Deps {
  platform: NodeJS.Platform;
  arch: string;
  env: Record<string, string | undefined>;
  exec: Exec;
  /** A file the machine names, as text: a regular file up to the kind's cap (base/safe-read.ts; MACHINE_FILE unless given), else undefined. */
  readFile(path: string, kind?: ReadKind): Promise<string | undefined>;
  readDir(path: string): Promise<string[] | undefined>;
  readLink(path: string): Promise<string | undefined>;
  exists(path: string): Promise<boolean>;
  /** undefined when this process may open the file read-write, else the errno code (EACCES, ENOENT, ...). */
  accessRW(path: string): Promise<string | undefined>;
  /** Owning group id, or undefined when the file cannot be stat'ed. */
  statGid(path: string): Promise<number | undefined>;
  /** Canonical path with every symlink resolved, or undefined when it does not exist. */
  realpath(path: string): Promise<string | undefined>;
  /** Hex sha256 of the file's bytes, or undefined when it cannot be read. */
  sha256(path: string): Promise<string | undefined>;
  /** True for a symbolic link (not followed). */
  isSymlink(path: string): Promise<boolean>;
  now(): number;
  /**
   * Whether `url` answers within `timeoutMs`, through the project's HTTP client with `env`'s proxy settings. Absent in
   * a test double that scripts no network: what needs it then says it cannot ask.
   */
  reach?(url: string, timeoutMs: number, env: Record<string, string | undefined>): Promise<ReachAnswer>;
  /** How this process was started: the node binary and the script it ran (for hints that repeat the command). */
  started?: { node: string; script: string | undefined };
}
