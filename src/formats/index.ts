// Archive format dispatch: one reader per package format, none of which touches the network.
import { createReadStream } from 'node:fs';
import type { EntryVisitor } from './entry.js';

export type ArchiveFormat = 'conda' | 'tar.bz2' | 'wheel' | 'zip' | 'deb' | 'tar.gz';

export type { ArchiveEntry, EntryVisitor } from './entry.js';

export function formatOf(filename: string): ArchiveFormat | undefined {
  if (filename.endsWith('.conda')) return 'conda';
  if (filename.endsWith('.tar.bz2')) return 'tar.bz2';
  if (filename.endsWith('.whl')) return 'wheel';
  if (filename.endsWith('.zip')) return 'zip';
  if (filename.endsWith('.deb')) return 'deb';
  if (filename.endsWith('.tar.gz') || filename.endsWith('.tgz')) return 'tar.gz';
  return undefined;
}

/** Each reader (and the zip, tar and decompression libraries behind it) is loaded when an archive of its format is read. */
export async function readArchive(format: ArchiveFormat, file: string, visit: EntryVisitor): Promise<void> {
  switch (format) {
    case 'conda':
      return (await import('./conda.js')).readCondaV2(file, visit);
    case 'tar.bz2':
      return (await import('./conda.js')).readCondaTarBz2(file, visit);
    case 'wheel':
      return (await import('./wheel.js')).readWheelData(file, visit);
    case 'zip':
      return (await import('./zip.js')).readZip(file, visit);
    case 'deb':
      return (await import('./deb.js')).readDeb(file, visit);
    case 'tar.gz': {
      const [{ readTar }, { gzipDecompressor }] = await Promise.all([import('./tar.js'), import('./decompress.js')]);
      return readTar(createReadStream(file), file, visit, gzipDecompressor());
    }
  }
}
