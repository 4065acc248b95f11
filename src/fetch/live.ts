// An archive as its download writes it: the writer says where it writes and how far it got; a reader follows it from
// byte 0 through its own file descriptor, so reading never slows the download and nothing is held in memory.
import * as fs from 'node:fs/promises';
import type { Pump } from '../base/pieces.js';
import { NotStreamable, type ByteSource } from '../formats/index.js';

const PIECE = 1 << 20;

export class LiveDownload {
  private file: string | undefined;
  private total: number | undefined;
  private written = 0;
  private rewound = false;
  private ended = false;
  private failure: unknown;
  private waiters: (() => void)[] = [];

  /**
   * The download opens `file` to write from `offset`, `size` bytes in all when known; writing before bytes already
   * written starts the file over.
   */
  begin(file: string, offset: number, size?: number): void {
    if (offset < this.written) this.rewound = true;
    this.file = file;
    this.total = size;
    this.written = offset;
    this.wake();
  }

  /** The whole file's size, from the index or the response; undefined until the download begins, or when neither says. */
  get size(): number | undefined {
    return this.total;
  }

  /** `n` more bytes are in the file. */
  advance(n: number): void {
    this.written += n;
    this.wake();
  }

  /** The download is over: verified and in the cache, or failed with `error`. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * A reader from byte 0 that waits for bytes not yet written, or undefined when the download is already over (or
   * never wrote: a cached file), in which case the finished file is the one to read.
   */
  async follow(): Promise<FollowedFile | undefined> {
    while (this.file === undefined && !this.ended) await this.changed();
    if (this.ended || this.file === undefined) return undefined;
    const fh = await fs.open(this.file, 'r').catch(() => undefined);
    return fh && new FollowedFile(this, fh);
  }

  /**
   * Bytes [pos, pos+n) into `into` once they are written; returns how many, fewer only at the end of a finished
   * download.
   */
  async readInto(fh: fs.FileHandle, into: Buffer, pos: number, n: number): Promise<number> {
    for (;;) {
      if (this.rewound) throw new NotStreamable('the download started over');
      const ready = Math.min(n, this.written - pos);
      if (ready > 0) {
        const { bytesRead } = await fh.read(into, 0, ready, pos);
        if (bytesRead < ready) throw new NotStreamable('the download started over');
        return ready;
      }
      if (this.ended) {
        if (this.failure !== undefined) throw this.failure;
        return 0;
      }
      await this.changed();
    }
  }

  /** True once the download ended well and never went back over bytes a reader may have read. */
  get whole(): boolean {
    return this.ended && this.failure === undefined && !this.rewound;
  }
}

/** A ByteSource over the file a LiveDownload writes. */
export class FollowedFile implements ByteSource {
  private pos = 0;
  /** Member data is read into this one buffer, piece after piece. */
  private spare?: Buffer;

  constructor(private readonly live: LiveDownload, private readonly fh: fs.FileHandle) {}

  async read(n: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      const k = await this.live.readInto(this.fh, buf.subarray(got), this.pos, n - got);
      if (!k) break;
      got += k;
      this.pos += k;
    }
    return buf.subarray(0, got);
  }

  pieces(n: number): Pump {
    return async (each) => {
      const buf = (this.spare ??= Buffer.allocUnsafe(PIECE));
      for (let left = n; left > 0; ) {
        const k = await this.live.readInto(this.fh, buf, this.pos, Math.min(left, PIECE));
        if (!k) throw new NotStreamable('the bytes end inside a member');
        this.pos += k;
        left -= k;
        await each(buf.subarray(0, k));
      }
    };
  }

  async rest(max: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let got = 0;
    for (;;) {
      const b = await this.read(PIECE);
      if (!b.length) return Buffer.concat(parts);
      got += b.length;
      if (got > max) throw new NotStreamable(`more than ${max} bytes follow the members`);
      parts.push(b);
    }
  }

  close(): Promise<void> {
    return this.fh.close().catch(() => undefined);
  }
}
