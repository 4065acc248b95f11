// Reads only the wanted packages' records out of a conda repodata.json stream: conda-forge's is hundreds of MB, and
// parsing it whole (or walking it byte by byte in JavaScript) would take seconds for the handful of records needed.
import { MAX_DISTANCE, NEEDLES, PairSearch } from './pair-search.js';
import type { Repodata, RepodataRecord } from './repodata.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Bytes of the stream looked at before choosing each pattern's needle, and gathered before each search. */
const BATCH_BYTES = 1 << 20;
/** Needles this short take the search's linear path (memchr for the first byte, then a compare). */
const NEEDLE_BYTES = 6;
/** How much of the document's start is looked at to choose the needles, and how many pieces of each are counted there. */
const SAMPLE_BYTES = 256 * 1024;
const CUTS_COUNTED = 3;

type Kind = 'record' | 'info' | 'removed' | 'repodata_version' | 'table';

interface Pattern {
  kind: Kind;
  bytes: Buffer;
  /** The needle searched for starts at this offset of the pattern; the whole pattern is checked at each hit. */
  cut: number;
  needle: Buffer;
  /** For the pair search: the offsets of the two bytes it is known by, the rarer first. */
  first: number;
  second: number;
  /** Absolute stream offset from which occurrences have not been looked at yet. */
  next: number;
  /** A top-level key, once found, is not searched for again. */
  done?: boolean;
}

/** `level-zero-1.20.6-h84d6215_0.conda` -> `level-zero`: conda versions and builds hold no `-`. */
export function nameOfFilename(filename: string): string {
  const b = filename.lastIndexOf('-');
  const v = b > 0 ? filename.lastIndexOf('-', b - 1) : -1;
  return v > 0 ? filename.slice(0, v) : filename;
}

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Where the JSON object or array starting at `start` ends (one past it); -1 when the buffer ends first. */
function containerEnd(b: Buffer, start: number): number {
  let depth = 0;
  for (let i = start; i < b.length; i++) {
    const c = b[i]!;
    if (c === QUOTE) {
      // Strings are skipped with native searches for the closing quote, checking for escapes.
      for (;;) {
        const q = b.indexOf(QUOTE, i + 1);
        if (q === -1) return -1;
        let bs = 0;
        while (b[q - 1 - bs] === BACKSLASH) bs++;
        i = q;
        if (bs % 2 === 0) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * Finds the records of the wanted names by searching for `"<name>-`, and parses only the matching records. The search
 * is one pass of WebAssembly SIMD over the text for all patterns at once (each known by two of its bytes, chosen as
 * rare in this very document), or where that is missing, a native search (`Buffer.indexOf`) per pattern, each cut at
 * its rarest byte so it runs at memchr speed. Multi-byte UTF-8 never contains the ASCII bytes it looks at, so bytes
 * are enough.
 */
export class RepodataScanner {
  private readonly names: Set<string>;
  private patterns?: Pattern[];
  /** Unexamined text: the tail of the previous chunks and what has arrived since. */
  private get window(): Buffer {
    return this.buf.subarray(0, this.filled);
  }
  /**
   * One buffer, reused (in the pair search's memory when there is one): chunks are copied in, or written in place,
   * until BATCH_BYTES wait to be searched (fewer, longer searches, and no fresh memory per chunk); what an unfinished
   * match still needs moves to its start.
   */
  private readonly search?: PairSearch;
  private own?: Buffer;
  private get buf(): Buffer {
    return this.search ? this.search.bytes : this.own!;
  }
  private filled = 0;
  private gathered = 0;
  /** Absolute stream offset of window[0]. */
  private start = 0;
  private lastByte = -1;
  private tablesSeen = false;
  private readonly doc: Repodata = {};

  /** `pairSearch: false`: the native searches, as where WebAssembly SIMD is missing. */
  constructor(names: Iterable<string>, opts: { pairSearch?: boolean } = {}) {
    this.names = new Set(names);
    if (opts.pairSearch !== false) this.search = PairSearch.create(2 * BATCH_BYTES);
    if (!this.search) this.own = Buffer.allocUnsafe(2 * BATCH_BYTES);
  }

  push(chunk: Uint8Array): void {
    if (!chunk.length) return;
    this.space(chunk.length).set(chunk);
    this.wrote(chunk.length);
  }

  /**
   * Room for at least `min` more bytes at the end of the unexamined text, for a producer (a decompressor) to write
   * into directly; `wrote` then hands on what it wrote. The buffer is reused, so writing there touches no fresh memory.
   */
  space(min: number): Buffer {
    if (this.filled + min > this.buf.length) {
      const size = Math.max(2 * this.buf.length, this.filled + min);
      if (this.search) this.search.grow(size);
      else {
        const bigger = Buffer.allocUnsafe(size);
        this.own!.copy(bigger, 0, 0, this.filled);
        this.own = bigger;
      }
    }
    return this.buf.subarray(this.filled);
  }

  /** Takes the `n` bytes just written at the start of `space()`. */
  wrote(n: number): void {
    if (!n) return;
    for (let i = this.filled + n - 1; i >= this.filled; i--) {
      if (!isSpace(this.buf[i])) {
        this.lastByte = this.buf[i]!;
        break;
      }
    }
    this.filled += n;
    this.gathered += n;
    if (this.gathered < BATCH_BYTES) return;
    this.gather();
    this.examine(false);
  }

  private gather(): void {
    this.gathered = 0;
    this.patterns ??= this.choosePatterns(this.window);
  }

  /**
   * Each pattern is searched for by its piece that is rarest in the first bytes of this very document (fewest
   * occurrences, then the rarest first byte): a search runs at memory speed only when its first byte seldom occurs.
   * Only the pieces starting with the rarest bytes are counted, in the first SAMPLE_BYTES. A name whose `"<name>-` starts
   * another's (`level-zero` and `level-zero-devel`) is searched for once: each hit is checked against every name.
   */
  private choosePatterns(window: Buffer): Pattern[] {
    const sample = window.subarray(0, SAMPLE_BYTES);
    const freq = new Uint32Array(256);
    for (let i = 0; i < sample.length; i++) freq[sample[i]!]!++;
    const occurrences = (needle: Buffer): number => {
      let n = 0;
      for (let p = sample.indexOf(needle); p !== -1; p = sample.indexOf(needle, p + 1)) n++;
      return n;
    };
    const make = (kind: Kind, text: string): Pattern => {
      const bytes = Buffer.from(text);
      const cuts = [...bytes.keys()].sort((a, b) => freq[bytes[a]!]! - freq[bytes[b]!]! || a - b).slice(0, CUTS_COUNTED);
      let best = { cut: 0, score: Infinity };
      for (const i of cuts) {
        const needle = bytes.subarray(i, i + NEEDLE_BYTES);
        const score = occurrences(needle) * sample.length + freq[needle[0]!]!;
        if (score < best.score) best = { cut: i, score };
      }
      return { kind, bytes, cut: best.cut, needle: bytes.subarray(best.cut, best.cut + NEEDLE_BYTES), next: 0, ...pairOf(bytes) };
    };
    /**
     * The pair search's two bytes: a first among the rarest (not the last byte), and the second after it that
     * least often follows it at that distance in the sample (then the rarer first byte).
     */
    const pairOf = (bytes: Buffer): { first: number; second: number } => {
      const firsts = [...bytes.keys()].slice(0, -1).sort((a, b) => freq[bytes[a]!]! - freq[bytes[b]!]! || a - b).slice(0, CUTS_COUNTED);
      let best = { first: 0, second: 1, score: Infinity };
      for (const first of firsts) {
        const at: number[] = [];
        for (let q = sample.indexOf(bytes[first]!); q !== -1; q = sample.indexOf(bytes[first]!, q + 1)) at.push(q);
        for (let second = first + 1; second < Math.min(bytes.length, first + MAX_DISTANCE + 1); second++) {
          const d = second - first;
          let n = 0;
          for (const q of at) if (sample[q + d] === bytes[second]) n++;
          const score = n * sample.length + at.length;
          if (score < best.score) best = { first, second, score };
        }
      }
      return { first: best.first, second: best.second };
    };
    const records = [...this.names].map((n) => `"${n}-`).sort();
    return [
      ...records.filter((r, i) => !records.slice(0, i).some((shorter) => r.startsWith(shorter))).map((r) => make('record', r)),
      make('info', '"info"'),
      make('removed', '"removed"'),
      make('repodata_version', '"repodata_version"'),
      make('table', '"packages"'),
      make('table', '"packages.conda"'),
    ];
  }

  /** Looks at every occurrence of every pattern in the window; keeps what an unfinished one still needs. */
  private examine(final: boolean): void {
    const keepFrom = this.search ? this.pairPass(final) : this.nativePass(final);
    this.buf.copyWithin(0, keepFrom, this.filled);
    this.filled -= keepFrom;
    this.start += keepFrom;
  }

  /**
   * The pair search, eight patterns a pass: each block of 16 positions where some pattern's two bytes match is looked
   * at, and there each pattern whose two bytes match is checked whole. Returns where the text still needed starts.
   */
  private pairPass(final: boolean): number {
    const w = this.window;
    const search = this.search!;
    // A pattern's second byte may lie up to MAX_DISTANCE after its first: nearer the end, only once the text has ended.
    const end = final ? w.length : Math.max(0, w.length - MAX_DISTANCE);
    let keepFrom = w.length;
    const active = this.patterns!.filter((p) => !p.done);
    for (let g = 0; g < active.length; g += NEEDLES) {
      const group = active.slice(g, g + NEEDLES);
      search.setNeedles(group.map((p) => ({ first: p.bytes[p.first]!, second: p.bytes[p.second]!, distance: p.second - p.first })));
      const pending = new Map<Pattern, number>();
      for (let from = Math.max(0, Math.min(...group.map((p) => p.next - this.start + p.first))); from < end; ) {
        const hit = search.next(from, end);
        if (!hit) break;
        for (let m = hit.mask; m; m &= m - 1) {
          const q = hit.at + 31 - Math.clz32(m & -m);
          if (q >= end) break;
          for (const p of group) {
            if (p.done || pending.has(p) || w[q] !== p.bytes[p.first] || w[q + p.second - p.first] !== p.bytes[p.second]) continue;
            const at = q - p.first;
            if (at < p.next - this.start) continue;
            // A pattern longer than MAX_DISTANCE may not all be here yet: it is looked at again once more has come.
            if (at + p.bytes.length > w.length) {
              if (!final) pending.set(p, at);
              continue;
            }
            if (w.compare(p.bytes, 0, p.bytes.length, at, at + p.bytes.length) !== 0) continue;
            const took = this.take(p.kind, w, at, p.bytes.length);
            if (took === 'later') pending.set(p, at);
            else if (took === 'key' && p.kind !== 'record') p.done = true;
          }
        }
        from = hit.at + 16;
      }
      for (const p of group) {
        const at = pending.get(p);
        if (final && at !== undefined) throw new Error('the JSON text ended early');
        // Every occurrence starting before this was looked at (or it is the one still waiting for its end).
        const next = at ?? Math.max(p.next - this.start, end - p.first);
        p.next = this.start + next;
        if (!p.done) keepFrom = Math.min(keepFrom, Math.max(0, next));
      }
    }
    return keepFrom;
  }

  /** The native searches, one pattern at a time. Returns where the text still needed starts. */
  private nativePass(final: boolean): number {
    const w = this.window;
    let keepFrom = w.length;
    for (const p of this.patterns!) {
      if (p.done) continue;
      let from = Math.max(0, p.next - this.start);
      let pending = -1;
      for (;;) {
        const hit = w.indexOf(p.needle, from + p.cut);
        if (hit === -1) break;
        const at = hit - p.cut;
        if (at + p.bytes.length > w.length) break;
        from = at + 1;
        if (at < 0 || w.compare(p.bytes, 0, p.bytes.length, at, at + p.bytes.length) !== 0) continue;
        const took = this.take(p.kind, w, at, p.bytes.length);
        if (took === 'later') {
          pending = at;
          break;
        }
        if (took === 'key' && p.kind !== 'record') {
          p.done = true;
          break;
        }
      }
      if (pending !== -1) {
        p.next = this.start + pending;
        keepFrom = Math.min(keepFrom, pending);
      } else {
        p.next = this.start + Math.max(from, w.length - p.bytes.length + 1);
        keepFrom = Math.min(keepFrom, Math.max(0, w.length - p.bytes.length + 1));
      }
      if (final && pending !== -1) throw new Error('the JSON text ended early');
    }
    return keepFrom;
  }

  /**
   * One occurrence of a pattern at `at`: a key when a colon follows its closing quote (its value then read), else
   * text to pass over; `later` when what decides is not all here yet.
   */
  private take(kind: Kind, w: Buffer, at: number, len: number): 'key' | 'other' | 'later' {
    const close = kind === 'record' ? w.indexOf(QUOTE, at + len) : at + len - 1;
    if (close === -1) return 'later';
    let i = close + 1;
    while (i < w.length && isSpace(w[i])) i++;
    if (i >= w.length) return 'later';
    if (w[i] !== COLON) return 'other';
    i++;
    while (i < w.length && isSpace(w[i])) i++;
    if (i >= w.length) return 'later';
    if (kind === 'table') {
      this.tablesSeen = true;
      return 'key';
    }
    if (kind === 'repodata_version') {
      const m = /^-?\d+/.exec(w.toString('latin1', i, Math.min(w.length, i + 24)));
      if (!m) return 'other';
      // The number may go on in the next chunk.
      if (i + m[0].length >= w.length) return 'later';
      this.doc.repodata_version = Number(m[0]);
      return 'key';
    }
    const open = w[i];
    if (open !== OPEN_BRACE && open !== OPEN_BRACKET) return 'other';
    const filename = kind === 'record' ? w.toString('utf8', at + 1, close) : '';
    if (kind === 'record' && (open !== OPEN_BRACE || !this.names.has(nameOfFilename(filename)))) return 'other';
    const end = containerEnd(w, i);
    if (end === -1) return 'later';
    if (kind === 'record') {
      const table = filename.endsWith('.conda') ? 'packages.conda' : 'packages';
      (this.doc[table] ??= {})[filename] = JSON.parse(w.toString('utf8', i, end)) as RepodataRecord;
    } else {
      (this.doc as Record<string, unknown>)[kind] = JSON.parse(w.toString('utf8', i, end)) as unknown;
      // repodata_version changes one thing, whether info's base_url holds; without one it is not searched for (at the
      // end of conda-forge's files, it would cost a search through all of them).
      if (kind === 'info' && !this.doc.info?.base_url) for (const p of this.patterns!) if (p.kind === 'repodata_version') p.done = true;
    }
    return 'key';
  }

  /** The document with only the wanted records (an empty table when the input had tables but none matched). */
  result(): Repodata {
    this.gather();
    this.examine(true);
    if (this.lastByte !== CLOSE_BRACE) throw new Error('the JSON text ended early');
    if (this.tablesSeen) this.doc.packages ??= {};
    return this.doc;
  }
}
