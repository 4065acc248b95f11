// What every archive reader yields: members in archive order, file bodies as streams.
import type { Pump } from '../base/pieces.js';
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

/** Bytes read once, front to back, possibly while they are still being written (a download in progress). */
export interface ByteSource {
  /** The next `n` bytes; fewer only where the bytes end. */
  read(n: number): Promise<Buffer>;
  /** The next `n` bytes as pieces (each valid until taken: see pieces.ts), all taken before anything else is asked. */
  pieces(n: number): Pump;
  /** Every byte left; more than `max` is an error. */
  rest(max: number): Promise<Buffer>;
}

/** A member's mode that a front-to-back reader learned only after yielding the member. */
export interface ModeFix {
  path: string;
  mode: number;
}

/**
 * This archive cannot be read front to back (data descriptors, zip64, links, a directory that disagrees with the
 * members, ...): nothing is wrong with it as far as this reader knows, and the finished file is read instead.
 */
export class NotStreamable extends Error {
  constructor(why: string) {
    super(`not readable front to back: ${why}`);
  }
}
