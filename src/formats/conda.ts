// conda packages: `.conda` (zip holding pkg-*.tar.zst and info-*.tar.zst) and `.tar.bz2`; yields the payload only.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { XpuError } from '../errors.js';
import { bzip2Decompressor, zstdDecompressor } from './decompress.js';
import type { ArchiveEntry, EntryVisitor } from './entry.js';
import { readTar } from './tar.js';
import { readZip } from './zip.js';

/** Payload members only: conda's own metadata lives under info/. */
const payload = (name: string) => !/^(\.\/)?info\//.test(name);

/** metadata.json is read into memory: a few dozen bytes in any real package. */
const MAX_METADATA = 64 * 1024;

const isPayload = (name: string) => /^pkg-.*\.tar\.zst$/.test(name);

/**
 * A .conda's payload, read in the same pass over the zip as its metadata.json, which every writer puts first; a
 * payload that comes before it is left for a second pass, so no payload is read before its format version is known.
 */
export async function readCondaV2(file: string, visit: EntryVisitor): Promise<void> {
  let version: number | undefined;
  let sawMeta = false;
  let deferred = false;
  let sawPayload = false;
  const payloadOf = async (entry: ArchiveEntry, body: Readable) => {
    sawPayload = true;
    await readTar(body, `${file}!${entry.path}`, visit, await zstdDecompressor(), payload);
  };
  await readZip(
    file,
    async (entry, body) => {
      if (entry.path === 'metadata.json') {
        if (entry.size > MAX_METADATA) throw new XpuError('BAD_ARCHIVE', `${file}: metadata.json declares ${entry.size} bytes; a .conda's is a few dozen`, { details: { file, size: entry.size } });
        const chunks: Buffer[] = [];
        for await (const c of body!) chunks.push(c as Buffer);
        sawMeta = true;
        version = formatVersion(Buffer.concat(chunks), file);
        if (version !== 2) throw notV2(file, version);
      } else if (sawMeta) {
        await payloadOf(entry, body!);
      } else {
        deferred = true;
      }
    },
    (name) => name === 'metadata.json' || isPayload(name),
  );
  if (version !== 2) throw notV2(file, version);
  if (deferred) await readZip(file, (entry, body) => payloadOf(entry, body!), isPayload);
  if (!sawPayload) {
    throw new XpuError('BAD_ARCHIVE', `${file}: .conda package without a pkg-*.tar.zst member`, { details: { file } });
  }
}

function formatVersion(metadata: Buffer, file: string): number | undefined {
  try {
    return (JSON.parse(metadata.toString('utf8')) as { conda_pkg_format_version?: number } | null)?.conda_pkg_format_version;
  } catch (e) {
    throw new XpuError('BAD_ARCHIVE', `${file}: metadata.json is not JSON`, { cause: e, details: { file }, hints: ['the download may be damaged: remove it from the cache and run again'] });
  }
}

function notV2(file: string, version: number | undefined): XpuError {
  return new XpuError('BAD_ARCHIVE', `${file}: not a .conda package (metadata.json format version ${String(version)})`, {
    details: { file, version },
    hints: ['xpu-setup reads .conda format version 2 (CEP 35)'],
  });
}

export async function readCondaTarBz2(file: string, visit: EntryVisitor): Promise<void> {
  await readTar(createReadStream(file), file, visit, await bzip2Decompressor(), payload);
}
