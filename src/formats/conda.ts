// conda packages: `.conda` (zip holding pkg-*.tar.zst and info-*.tar.zst) and `.tar.bz2`; yields the payload only.
import { createReadStream } from 'node:fs';
import { XpuError } from '../errors.js';
import { bzip2Decompressor, zstdDecompressor } from './decompress.js';
import type { EntryVisitor } from './entry.js';
import { readTar } from './tar.js';
import { readZip, readZipMember } from './zip.js';

/** Payload members only: conda's own metadata lives under info/. */
const payload = (name: string) => !/^(\.\/)?info\//.test(name);

export async function readCondaV2(file: string, visit: EntryVisitor): Promise<void> {
  const meta = await readZipMember(file, 'metadata.json');
  const version = meta ? (JSON.parse(meta.toString('utf8')) as { conda_pkg_format_version?: number }).conda_pkg_format_version : undefined;
  if (version !== 2) {
    throw new XpuError('BAD_ARCHIVE', `${file}: not a .conda package (metadata.json format version ${String(version)})`, {
      details: { file, version },
      hints: ['xpu-setup reads .conda format version 2 (CEP 35)'],
    });
  }
  let sawPayload = false;
  await readZip(
    file,
    async (entry, body) => {
      sawPayload = true;
      await readTar(body!, `${file}!${entry.path}`, visit, await zstdDecompressor(), payload);
    },
    (name) => /^pkg-.*\.tar\.zst$/.test(name),
  );
  if (!sawPayload) {
    throw new XpuError('BAD_ARCHIVE', `${file}: .conda package without a pkg-*.tar.zst member`, { details: { file } });
  }
}

export async function readCondaTarBz2(file: string, visit: EntryVisitor): Promise<void> {
  await readTar(createReadStream(file), file, visit, await bzip2Decompressor(), payload);
}
