// conda packages: `.conda` (zip holding pkg-*.tar.zst and info-*.tar.zst) and `.tar.bz2`; yields the payload only.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { XpuError } from '../base/errors.js';
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
export async function readCondaV2(file: string, visit: EntryVisitor, name = file): Promise<void> {
  let version: number | undefined;
  let sawMeta = false;
  let deferred = false;
  let sawPayload = false;
  const payloadOf = async (entry: ArchiveEntry, body: Readable) => {
    sawPayload = true;
    await readTar(body, `${name}!${entry.path}`, visit, await zstdDecompressor(), payload);
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

export async function readCondaTarBz2(file: string, visit: EntryVisitor, name = file): Promise<void> {
  await readTar(createReadStream(file), name, visit, await bzip2Decompressor(), payload);
}

/** A payload file that holds the build prefix, as info/paths.json says: conda rewrites it to the install prefix. */
export interface CondaPlaceholder {
  /** Package-relative path (the member's path in the payload). */
  path: string;
  placeholder: string;
  mode: 'text' | 'binary';
}

/** paths.json lists every file; only a few dozen bytes per entry, so even large packages stay far below this. */
const MAX_PATHS_JSON = 64 * 1024 * 1024;

/** Pure: the entries of info/paths.json (paths_version 1) that carry a prefix_placeholder. */
export function parsePathsJson(text: string, file: string): CondaPlaceholder[] {
  let doc: { paths?: { _path?: unknown; prefix_placeholder?: unknown; file_mode?: unknown }[] };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch (e) {
    throw new XpuError('BAD_ARCHIVE', `${file}: info/paths.json is not JSON`, { cause: e, details: { file } });
  }
  const out: CondaPlaceholder[] = [];
  for (const p of doc?.paths ?? []) {
    if (typeof p?.prefix_placeholder !== 'string' || p.prefix_placeholder === '') continue;
    if (typeof p._path !== 'string') throw new XpuError('BAD_ARCHIVE', `${file}: an info/paths.json entry with a prefix_placeholder has no _path`, { details: { file } });
    // conda's default when file_mode is absent is text.
    const mode = p.file_mode === 'binary' ? 'binary' : p.file_mode === undefined || p.file_mode === 'text' ? 'text' : undefined;
    if (!mode) throw new XpuError('BAD_ARCHIVE', `${file}: info/paths.json gives ${p._path} the file_mode ${JSON.stringify(p.file_mode)} (conda knows text and binary)`, { details: { file, path: p._path } });
    out.push({ path: p._path, placeholder: p.prefix_placeholder, mode });
  }
  return out;
}

/** The placeholders of a conda package (.conda or .tar.bz2), from its info/paths.json; none when it has no such file. */
export async function readCondaPlaceholders(format: 'conda' | 'tar.bz2', file: string): Promise<CondaPlaceholder[]> {
  let text: string | undefined;
  const grab = async (entry: ArchiveEntry, body: Readable | undefined) => {
    if (entry.type !== 'file' || !body) return;
    if (entry.size > MAX_PATHS_JSON) throw new XpuError('BAD_ARCHIVE', `${file}: info/paths.json declares ${entry.size} bytes`, { details: { file, size: entry.size } });
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(c as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  };
  const isPathsJson = (name: string) => /^(\.\/)?info\/paths\.json$/.test(name);
  if (format === 'conda') {
    await readZip(file, async (entry, body) => readTar(body!, `${file}!${entry.path}`, grab, await zstdDecompressor(), isPathsJson), (name) => /^info-.*\.tar\.zst$/.test(name));
  } else {
    await readTar(createReadStream(file), file, grab, await bzip2Decompressor(), isPathsJson);
  }
  return text === undefined ? [] : parsePathsJson(text, file);
}

/**
 * Pure: a binary file's placeholder replaced as conda does it: inside each NUL-terminated string that holds it, the
 * string keeps its length, padded with NULs after the new text. Refused (as conda refuses) when the new prefix is
 * longer than the placeholder, since the string cannot grow inside compiled code.
 */
export function replaceBinaryPlaceholder(data: Buffer, placeholder: string, prefix: string, what: string): Buffer {
  const search = Buffer.from(placeholder);
  const replacement = Buffer.from(prefix);
  if (replacement.length > search.length) {
    throw new XpuError('INSTALL', `cannot relocate ${what}: the prefix ${prefix} (${replacement.length} bytes) is longer than the package's build placeholder (${search.length} bytes), which a binary file cannot grow past`, {
      details: { file: what, prefix, placeholderBytes: search.length },
      hints: [`choose a prefix of at most ${search.length} bytes`],
    });
  }
  const out = Buffer.from(data);
  let at = out.indexOf(search);
  while (at >= 0) {
    // conda matches the placeholder up to its NUL; one that runs to the end of the file is left as it is.
    const end = out.indexOf(0, at + search.length);
    if (end < 0) break;
    const old = out.subarray(at, end);
    const parts: Buffer[] = [];
    let from = 0;
    for (let i = old.indexOf(search); i >= 0; i = old.indexOf(search, from)) {
      parts.push(old.subarray(from, i), replacement);
      from = i + search.length;
    }
    parts.push(old.subarray(from));
    const fresh = Buffer.concat(parts);
    fresh.copy(out, at);
    out.fill(0, at + fresh.length, end);
    at = out.indexOf(search, end);
  }
  return out;
}
