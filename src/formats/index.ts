// Archive format dispatch: one reader per package format, none of which touches the network.
import { createReadStream } from 'node:fs';
import { readCondaTarBz2, readCondaV2 } from './conda.js';
import { readDeb } from './deb.js';
import type { EntryVisitor } from './entry.js';
import { readWheelData } from './wheel.js';
import { readZip } from './zip.js';
import { readTar } from './tar.js';
import { gzipDecompressor } from './decompress.js';

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

export async function readArchive(format: ArchiveFormat, file: string, visit: EntryVisitor): Promise<void> {
  switch (format) {
    case 'conda':
      return readCondaV2(file, visit);
    case 'tar.bz2':
      return readCondaTarBz2(file, visit);
    case 'wheel':
      return readWheelData(file, visit);
    case 'zip':
      return readZip(file, visit);
    case 'deb':
      return readDeb(file, visit);
    case 'tar.gz':
      return readTar(createReadStream(file), file, visit, gzipDecompressor());
  }
}
