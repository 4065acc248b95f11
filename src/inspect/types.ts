// Shared shapes of the detection layer: every finder answers with what it found and every place it looked.

export interface Finding<T> {
  found: T;
  /** Each place looked at and what was there, in order; doctor --verbose prints these. */
  tried: string[];
}

/** Options shared by the finders: a root for sysfs//dev//etc trees (tests point it at a temp dir) and extra I/O. */
export interface DetectOptions {
  /** Filesystem root for /sys, /dev and /etc lookups; "/" on a real machine. */
  root?: string;
  io?: DetectIo;
}

/** File-system questions the Deps object does not answer; injected so tests can say "permission denied" as root. */
export interface DetectIo {
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
}
