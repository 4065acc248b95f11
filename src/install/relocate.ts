// conda's build-prefix placeholders, rewritten to the install prefix as conda does when it links a package.
import { readCondaPlaceholders, replaceBinaryPlaceholder } from '../formats/conda.js';
import type { MapRule } from '../manifest/schema.js';
import { mapMember } from './map.js';
import type { Staging } from './staging.js';

/**
 * Rewrites every file info/paths.json marks with a prefix_placeholder: text files get each occurrence replaced by
 * `prefix` (with forward slashes, as conda writes it into text on Windows too); binary files as conda pads C strings
 * (replaceBinaryPlaceholder). Files the map leaves out of the prefix are skipped. Returns the prefix paths rewritten.
 */
export async function relocateConda(staging: Staging, format: 'conda' | 'tar.bz2', file: string, label: string, rules: MapRule[], prefix: string, sep: string): Promise<string[]> {
  const textPrefix = Buffer.from(prefix.split(sep).join('/'));
  const done: string[] = [];
  for (const p of await readCondaPlaceholders(format, file)) {
    const rel = mapMember(rules, p.path);
    if (rel === undefined) continue;
    const search = Buffer.from(p.placeholder);
    const changed = await staging.rewrite(rel, (data) =>
      p.mode === 'text' ? replaceAll(data, search, textPrefix) : replaceBinaryPlaceholder(data, p.placeholder, prefix, `${rel} from ${label}`),
    );
    if (changed) done.push(rel);
  }
  return done;
}

function replaceAll(data: Buffer, search: Buffer, replacement: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = data.indexOf(search); i >= 0; i = data.indexOf(search, from)) {
    parts.push(data.subarray(from, i), replacement);
    from = i + search.length;
  }
  if (from === 0) return data;
  parts.push(data.subarray(from));
  return Buffer.concat(parts);
}
