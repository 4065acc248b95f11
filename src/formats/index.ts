// Archive format dispatch: one reader per package format, none of which touches the network.
import { createReadStream } from 'node:fs';
import { NotStreamable, type ByteSource, type EntryVisitor, type ModeFix } from './entry.js';

export type ArchiveFormat = 'conda' | 'tar.bz2' | 'wheel' | 'zip' | 'deb' | 'tar.gz';

export { NotStreamable } from './entry.js';
export type { ArchiveEntry, ByteSource, EntryVisitor, ModeFix } from './entry.js';

export function formatOf(filename: string): ArchiveFormat | undefined {
  if (filename.endsWith('.conda')) return 'conda';
  if (filename.endsWith('.tar.bz2')) return 'tar.bz2';
  if (filename.endsWith('.whl')) return 'wheel';
  if (filename.endsWith('.zip')) return 'zip';
  if (filename.endsWith('.deb')) return 'deb';
  if (filename.endsWith('.tar.gz') || filename.endsWith('.tgz')) return 'tar.gz';
  return undefined;
}

/**
 * Each reader (and the zip, tar and decompression libraries behind it) is loaded when an archive of its format is read.
 * `name` is what messages call the archive (its file name and source), where `file` may be a cache path.
 */
export async function readArchive(format: ArchiveFormat, file: string, visit: EntryVisitor, name = file): Promise<void> {
  switch (format) {
    case 'conda':
      return (await import('./conda.js')).readCondaV2(file, visit, name);
    case 'tar.bz2':
      return (await import('./conda.js')).readCondaTarBz2(file, visit, name);
    case 'wheel':
      return (await import('./wheel.js')).readWheelData(file, visit);
    case 'zip':
      return (await import('./zip.js')).readZip(file, visit);
    case 'deb':
      return (await import('./deb.js')).readDeb(file, visit, name);
    case 'tar.gz': {
      const [{ readTar }, { gzipDecompressor }] = await Promise.all([import('./tar.js'), import('./decompress.js')]);
      return readTar(createReadStream(file), name, visit, gzipDecompressor());
    }
  }
}

/** Formats readArchiveLive reads: zips carry each member's sizes before its data. */
export function readsLive(format: ArchiveFormat): boolean {
  return format === 'wheel' || format === 'zip';
}

/** Reads an archive while it arrives, where its format allows (see readsLive); NotStreamable where it does not. */
export async function readArchiveLive(format: ArchiveFormat, source: ByteSource, label: string, visit: EntryVisitor): Promise<ModeFix[]> {
  switch (format) {
    case 'wheel':
      return (await import('./wheel.js')).readWheelDataLive(source, label, visit);
    case 'zip':
      return (await import('./zip-live.js')).readZipLive(source, label, visit);
    default:
      throw new NotStreamable(`${format} archives are read from the finished file`);
  }
}
