// Reads only the wanted packages' records out of a conda repodata.json stream: conda-forge's is hundreds of MB, and
// parsing it whole (or walking it byte by byte in JavaScript) would take seconds for the handful of records needed.
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
 * Finds the records of the wanted names with native searches (`Buffer.indexOf`) for `"<name>-`, each cut at its
 * rarest byte in this document so the search runs at memchr speed; only the matching records are parsed. Multi-byte
 * UTF-8 never contains the ASCII bytes it looks at, so bytes are enough.
 */
export class RepodataScanner {
  private readonly names: Set<string>;
  private patterns?: Pattern[];
  /** Unexamined text: the tail of the previous chunks and what has arrived since. */
  private get window(): Buffer {
    return this.buf.subarray(0, this.filled);
  }
  /**
   * One buffer, reused: chunks are copied in until BATCH_BYTES wait to be searched (fewer, longer native searches,
   * and no fresh memory per chunk); what an unfinished match still needs moves to its start.
   */
  private buf: Buffer = Buffer.allocUnsafe(2 * BATCH_BYTES);
  private filled = 0;
  private gathered = 0;
  /** Absolute stream offset of window[0]. */
  private start = 0;
  private lastByte = -1;
  private tablesSeen = false;
  private readonly doc: Repodata = {};
  /** Bytes of the document so far, against `maxBytes`. */
  private decoded = 0;

  constructor(
    names: Iterable<string>,
    private readonly maxBytes = Infinity,
  ) {
    this.names = new Set(names);
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
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.filled + min));
      this.buf.copy(bigger, 0, 0, this.filled);
      this.buf = bigger;
    }
    return this.buf.subarray(this.filled);
  }

  /** Takes the `n` bytes just written at the start of `space()`. */
  wrote(n: number): void {
    if (!n) return;
    this.decoded += n;
    // A bomb (GBs of whitespace behind a few KB) is stopped here, not scanned to its end.
    if (this.decoded > this.maxBytes) throw new DecodedTooLarge(this.maxBytes);
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
      return { kind, bytes, cut: best.cut, needle: bytes.subarray(best.cut, best.cut + NEEDLE_BYTES), next: 0 };
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
    this.buf.copyWithin(0, keepFrom, this.filled);
    this.filled -= keepFrom;
    this.start += keepFrom;
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

/** A document that decodes to more than the limit allows (said with its URL by whoever knows it). */
export class DecodedTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the document decodes to more than ${limit} bytes`);
  }
}
