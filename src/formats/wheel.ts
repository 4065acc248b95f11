// Wheels: zip files whose `<dist>-<ver>.data/data/X` members install to `<prefix>/X`; only those are yielded.
import type { ByteSource, EntryVisitor, ModeFix } from './entry.js';
import { readZip, type ZipSource } from './zip.js';
import { readZipLive } from './zip-live.js';

const DATA = /^[^/]+\.data\/data\/(.+)$/;

const dataOnly = (name: string) => DATA.test(name.replace(/\\/g, '/'));
const installedPath = (member: string) => DATA.exec(member)![1]!;

export async function readWheelData(file: string, visit: EntryVisitor): Promise<void> {
  await readZip(file, (entry, body) => visit({ ...entry, path: installedPath(entry.path) }, body), dataOnly);
}

/** The same members as readWheelData, read while the wheel arrives (see zip-live.ts). */
export async function readWheelDataLive(source: ByteSource, label: string, visit: EntryVisitor): Promise<ModeFix[]> {
  const fixes = await readZipLive(source, label, (entry, body) => visit({ ...entry, path: installedPath(entry.path) }, body), dataOnly);
  return fixes.map((f) => ({ ...f, path: installedPath(f.path) }));
}

/**
 * The wheel's `<dist>-<ver>.dist-info/METADATA`, as bytes (what PEP 658 serves beside it), CRC-checked; undefined when
 * it has none. Only that member is read: from a range reader, the central directory and that member's bytes.
 */
export async function readWheelMetadata(source: ZipSource): Promise<Buffer | undefined> {
  let found: Buffer | undefined;
  await readZip(
    source,
    async (_entry, body) => {
      const chunks: Buffer[] = [];
      for await (const c of body!) chunks.push(c as Buffer);
      found = Buffer.concat(chunks);
    },
    (name) => /^[^/]+\.dist-info\/METADATA$/.test(name),
  );
  return found;
}
