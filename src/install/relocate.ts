// conda's build-prefix placeholders, rewritten to the install prefix as conda does when it links a package.
import { readCondaPlaceholders, replaceBinaryPlaceholder } from '../formats/conda.js';
import type { MapRule } from '../manifest/schema.js';
import { mapMember } from './map.js';
import type { Staging, StreamEdit } from './staging.js';

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
    const changed =
      p.mode === 'text'
        ? // What the prefix adds over the placeholder counts against the archive's unpack limits, before it is written.
          await staging.rewriteStreaming(rel, textReplacer(Buffer.from(p.placeholder), textPrefix, (hits) => staging.charge(label, hits * (textPrefix.length - p.placeholder.length))))
        : await staging.rewrite(rel, (data) => replaceBinaryPlaceholder(data, p.placeholder, prefix, `${rel} from ${label}`));
    if (changed) done.push(rel);
  }
  return done;
}

/**
 * Replaces every occurrence of `search` with `replacement` in a stream, left to right as a whole-file replace would: the
 * last bytes of a piece that may begin an occurrence wait for the next piece. `charge` hears each piece's count first.
 */
export function textReplacer(search: Buffer, replacement: Buffer, charge: (hits: number) => void): StreamEdit {
  let carry = Buffer.alloc(0);
  let changed = false;
  return {
    step(piece) {
      const data = carry.length ? Buffer.concat([carry, piece]) : piece;
      const parts: Buffer[] = [];
      let from = 0;
      for (let i = data.indexOf(search); i >= 0; i = data.indexOf(search, from)) {
        parts.push(data.subarray(from, i), replacement);
        from = i + search.length;
      }
      if (parts.length) charge(parts.length / 2);
      changed ||= parts.length > 0;
      const keep = Math.max(from, data.length - search.length + 1);
      parts.push(data.subarray(from, keep));
      carry = Buffer.from(data.subarray(keep));
      return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    },
    flush() {
      const rest = carry;
      carry = Buffer.alloc(0);
      return rest;
    },
    get changed() {
      return changed;
    },
  };
}
