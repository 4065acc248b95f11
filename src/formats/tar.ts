// Tar reading (node-tar's parser) from any byte stream, optionally through a decompressor, one member at a time.
import { pipeline } from 'node:stream/promises';
import type { Duplex, Readable } from 'node:stream';
import type { ReadEntry } from 'tar';
import { XpuError } from '../base/errors.js';
import type { EntryType, EntryVisitor } from './entry.js';
import { safeHardLinkTarget, safePath } from './safe-path.js';

const TYPES: Record<string, EntryType | undefined> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Directory: 'dir',
  SymbolicLink: 'symlink',
  Link: 'hardlink',
};

const SPARSE_HINT = 'packages are not built with sparse files; this one is damaged or not one xpu-setup can use; nothing from it was installed';

/** One read under way: members are visited one after another (a hard link needs its target first). */
interface TarRead {
  archive: string;
  visit: EntryVisitor;
  filter?: (name: string) => boolean;
  /** The first failure; every member after it is drained unseen. */
  failure?: unknown;
  chain: Promise<void>;
  /** The member being handed to `visit`: a broken stream must end its body too, or the visitor waits for ever. */
  active?: ReadEntry;
  /** Keeps the first failure and stops reading: a bomb or a hostile member is not decompressed to its end. */
  stop(e: unknown): void;
}

/** A member node-tar skips on its own (a GNU sparse file, a header too large): the file would be missing, so refused. */
function ignoredMember(archive: string, entry: ReadEntry): XpuError {
  return new XpuError('BAD_ARCHIVE', `${archive}: member "${entry.path}" is a ${entry.type === 'SparseFile' ? 'GNU sparse file' : `${entry.type} member`}, which xpu-setup does not unpack`, {
    details: { archive, member: entry.path, type: entry.type },
    hints: [SPARSE_HINT],
  });
}

/** Checks one member (its name, even when the filter skips it; its type) and hands it to the visitor. */
async function visitMember(r: TarRead, entry: ReadEntry): Promise<void> {
  r.active = entry;
  if (r.failure) {
    entry.resume();
    return;
  }
  const { archive } = r;
  const name = entry.path;
  // A POSIX (pax) sparse file stands in its archive as GNUSparseFile.<pid>/<name> with the sparse map as its data.
  if (/(^|\/)GNUSparseFile\.\d+\//.test(name)) {
    entry.resume();
    throw new XpuError('BAD_ARCHIVE', `${archive}: member "${name}" is a sparse file (pax format), which xpu-setup does not unpack`, {
      details: { archive, member: name },
      hints: [SPARSE_HINT],
    });
  }
  // Every member's name is checked, also those the filter skips: a hostile name anywhere is a hostile archive.
  const isRoot = /^(\.?\/)*\.?$/.test(name);
  if (!isRoot) safePath(name, archive);
  if (r.filter && !r.filter(name)) {
    entry.resume();
    return;
  }
  const type = TYPES[entry.type];
  if (!type) {
    entry.resume();
    throw new XpuError('BAD_ARCHIVE', `${archive}: member "${name}" has unsupported type ${entry.type}`, {
      details: { archive, member: name, type: entry.type },
      hints: ['only files, directories and links are installed; the package is not one xpu-setup can use'],
    });
  }
  if (type === 'dir' && isRoot) {
    entry.resume();
    return;
  }
  const p = safePath(name, archive);
  const linkTarget = type === 'hardlink' ? safeHardLinkTarget(name, entry.linkpath ?? '', archive) : entry.linkpath;
  if (type !== 'file') entry.resume();
  await r.visit({ path: p, type, mode: (entry.mode ?? 0o644) & 0o7777, linkTarget, size: entry.size ?? 0 }, type === 'file' ? (entry as unknown as Readable) : undefined);
}

/** A member whose bytes stopped coming fails where it is written; the cause is the archive, not the staging tree. */
function memberFailure(archive: string, entry: ReadEntry, e: unknown): unknown {
  const left = (entry as unknown as { remain?: number }).remain ?? 0;
  // A write the file system refused (no space, no quota, an I/O error) is the tree's fault, however much was left.
  const refused = e instanceof XpuError ? e.code !== 'INSTALL' : typeof (e as NodeJS.ErrnoException | undefined)?.syscall === 'string';
  const cut = left > 0 && !refused;
  if (!cut) return e;
  return new XpuError('BAD_ARCHIVE', `${archive}: member "${entry.path}" ends ${left} bytes early: the archive is cut short or damaged`, {
    cause: e,
    details: { archive, member: entry.path, missing: left },
    hints: ['the download may be damaged: remove it from the cache and run again, or report the package to the index owner'],
  });
}

/** The stream broke first: whatever the member being written fails with afterwards is a consequence of that. */
async function brokenStream(r: TarRead, e: unknown): Promise<never> {
  const broken = !r.failure;
  // node-tar names the member its input ended in (`entry` of its "Truncated input"), which it may have ended already.
  const cutIn = (e as { entry?: ReadEntry } | undefined)?.entry;
  const open = r.active && !(r.active as unknown as { emittedEnd?: boolean }).emittedEnd ? r.active : undefined;
  const inside = broken ? (open ?? cutIn) : undefined;
  const bad = new XpuError('BAD_ARCHIVE', `${r.archive} is not a readable tar archive${inside ? `: it ends inside member "${inside.path}"` : ''}`, {
    cause: e,
    details: { archive: r.archive, ...(inside ? { member: inside.path } : {}) },
    hints: ['the download may be damaged: remove it from the cache and run again'],
  });
  // The member being written fails with the archive's fault, not as a write that went wrong.
  if (inside) (inside as unknown as Readable).destroy(bad);
  await r.chain;
  if (r.failure && !broken) throw r.failure;
  throw bad;
}

/**
 * Streams `source` (optionally through `decompressor`) into the tar parser. Each member is handed to `visit`
 * as it arrives; metadata members (pax headers) are consumed by the parser; other types are refused.
 */
export async function readTar(
  source: Readable,
  archive: string,
  visit: EntryVisitor,
  decompressor?: Duplex,
  filter?: (name: string) => boolean,
): Promise<void> {
  // node-tar loads with the first archive read: a run that unpacks nothing (a no-op, plan, env) does not pay for it.
  const { Parser } = await import('tar');
  const parser = new Parser({ strict: true });
  // node-tar's parser may never report "closed" once its input is cut, so a refusal settles the read by itself.
  let abort: (e: unknown) => void = () => undefined;
  const aborted = new Promise<never>((_resolve, reject) => (abort = reject));
  aborted.catch(() => undefined);
  const r: TarRead = {
    archive,
    visit,
    filter,
    chain: Promise.resolve(),
    stop(e) {
      r.failure ??= e;
      abort(r.failure);
      source.destroy();
      decompressor?.destroy();
    },
  };
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    r.chain = r.chain.then(() => Promise.reject(ignoredMember(archive, entry))).catch((e) => r.stop(e));
  });
  parser.on('entry', (entry: ReadEntry) => {
    r.chain = r.chain.then(() => visitMember(r, entry)).catch((e) => {
      const failure = memberFailure(archive, entry, e);
      entry.resume();
      r.stop(failure);
    });
  });
  const stages: (NodeJS.ReadableStream | NodeJS.WritableStream)[] = [source];
  if (decompressor) stages.push(decompressor);
  stages.push(parser as unknown as NodeJS.WritableStream);
  try {
    const reading = pipeline(stages as unknown as [Readable, NodeJS.WritableStream]);
    reading.catch(() => undefined);
    await Promise.race([reading, aborted]);
  } catch (e) {
    await brokenStream(r, e);
  }
  await r.chain;
  if (r.failure) throw r.failure;
}
