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
  // A path paths.json lists again is rewritten once: the first entry rewrote it already.
  const seen = new Set<string>();
  for (const p of await readCondaPlaceholders(format, file)) {
    const rel = mapMember(rules, p.path);
    if (rel === undefined || seen.has(rel)) continue;
    seen.add(rel);
    const search = Buffer.from(p.placeholder);
    const changed = await staging.rewrite(rel, (data) => {
      if (p.mode !== 'text') return replaceBinaryPlaceholder(data, p.placeholder, prefix, `${rel} from ${label}`);
      // What the prefix adds over the placeholder counts against the archive's unpack limits, before it is made.
      const hits = occurrences(data, search);
      staging.charge(label, hits * (textPrefix.length - search.length));
      return replaceAll(data, search, textPrefix, hits);
    });
    if (changed) done.push(rel);
  }
  return done;
}

function occurrences(data: Buffer, search: Buffer): number {
  let n = 0;
  for (let i = data.indexOf(search); i >= 0; i = data.indexOf(search, i + search.length)) n++;
  return n;
}

/** `data` with its `hits` occurrences of `search` replaced, made in one buffer of the final size. */
function replaceAll(data: Buffer, search: Buffer, replacement: Buffer, hits: number): Buffer {
  if (!hits) return data;
  const out = Buffer.allocUnsafe(data.length + hits * (replacement.length - search.length));
  let from = 0;
  let to = 0;
  for (let i = data.indexOf(search); i >= 0; i = data.indexOf(search, from)) {
    to += data.copy(out, to, from, i);
    to += replacement.copy(out, to);
    from = i + search.length;
  }
  data.copy(out, to, from);
  return out;
}
