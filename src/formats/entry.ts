// What every archive reader yields: members in archive order, file bodies as streams.
import type { Readable } from 'node:stream';

export type EntryType = 'file' | 'dir' | 'symlink' | 'hardlink';

export interface ArchiveEntry {
  /** Member path, already passed through safePath(). */
  path: string;
  type: EntryType;
  mode: number;
  /** Symlink target as stored (relative), or the hard-link source member (safe path). */
  linkTarget?: string;
  size: number;
}

/**
 * Called once per member, in order. For files the visitor must start consuming `body` before returning its
 * promise chain (pipe it or resume it), since the reader streams and does not buffer whole archives.
 */
export type EntryVisitor = (entry: ArchiveEntry, body: Readable | undefined) => Promise<void>;
