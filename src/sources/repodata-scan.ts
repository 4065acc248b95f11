// Reads only the wanted packages' records out of a conda repodata.json stream: conda-forge's is hundreds of MB, and
// parsing it whole would take seconds and a gigabyte of memory for the two records xpu-setup needs.
import type { Repodata, RepodataRecord } from './conda.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const TABLES = new Set(['packages', 'packages.conda']);
const TOP_LEVEL = new Set(['info', 'repodata_version', 'removed']);

/**
 * A byte-level scanner over the JSON text: it tracks strings and nesting only, and hands the text of the values it
 * wants to JSON.parse. Multi-byte UTF-8 never contains the ASCII bytes it looks at, so bytes are enough.
 */
export class RepodataScanner {
  private depth = 0;
  private inString = false;
  private escape = false;
  /** Bytes of the string being read, kept only where keys of interest live (depth 1 and 2). */
  private str: number[] | undefined;
  private lastString = '';
  private topKey = '';
  private capture: { key: string; table?: string; depth: number; parts: Buffer[] } | undefined;
  private tablesSeen = false;
  private readonly doc: Repodata = {};

  constructor(private readonly wanted: (filename: string) => boolean) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (b === BACKSLASH) this.escape = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.str) {
            this.lastString = JSON.parse(`"${Buffer.from(this.str).toString('utf8')}"`) as string;
            this.str = undefined;
            continue;
          }
        }
        if (this.str) this.str.push(b);
        continue;
      }
      switch (b) {
        case QUOTE:
          this.inString = true;
          if (!this.capture && this.depth <= 2) this.str = [];
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
          this.depth++;
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          if (this.capture && this.depth === this.capture.depth) {
            this.finish(chunk.subarray(start, i));
          }
          this.depth--;
          break;
        case COMMA:
          if (this.capture && this.depth === this.capture.depth) this.finish(chunk.subarray(start, i));
          break;
        case COLON:
          if (this.capture) break;
          if (this.depth === 1) {
            this.topKey = this.lastString;
            if (TABLES.has(this.topKey)) this.tablesSeen = true;
            if (TOP_LEVEL.has(this.topKey)) {
              this.capture = { key: this.topKey, depth: 1, parts: [] };
              start = i + 1;
            }
          } else if (this.depth === 2 && TABLES.has(this.topKey) && this.wanted(this.lastString)) {
            this.capture = { key: this.lastString, table: this.topKey, depth: 2, parts: [] };
            start = i + 1;
          }
          break;
      }
    }
    if (this.capture) this.capture.parts.push(Buffer.from(chunk.subarray(start)));
  }

  private finish(tail: Buffer): void {
    const c = this.capture!;
    this.capture = undefined;
    const value = JSON.parse(Buffer.concat([...c.parts, tail]).toString('utf8')) as unknown;
    if (c.table) {
      const t = c.table as 'packages' | 'packages.conda';
      (this.doc[t] ??= {})[c.key] = value as RepodataRecord;
    } else {
      (this.doc as Record<string, unknown>)[c.key] = value;
    }
  }

  /** The document with only the wanted records (an empty table when the input had tables but none matched). */
  result(): Repodata {
    if (this.depth !== 0 || this.inString) throw new Error('the JSON text ended early');
    if (this.tablesSeen) this.doc.packages ??= {};
    return this.doc;
  }
}
