// An archive as its download writes it: the writer says where it writes and how far it got; a reader follows it from
// byte 0 through its own file descriptor, so reading never slows the download and nothing is held in memory.
import * as fs from 'node:fs/promises';
import { Readable } from 'node:stream';
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

  /** Bytes [pos, pos+n) once they are written; fewer only at the end of a finished download. */
  async readAt(fh: fs.FileHandle, pos: number, n: number): Promise<Buffer> {
    for (;;) {
      if (this.rewound) throw new NotStreamable('the download started over');
      const ready = Math.min(n, this.written - pos);
      if (ready > 0) {
        const buf = Buffer.allocUnsafe(ready);
        const { bytesRead } = await fh.read(buf, 0, ready, pos);
        // The file shrank under the reader: the download replaced it.
        if (bytesRead < ready) throw new NotStreamable('the download started over');
        return buf;
      }
      if (this.ended) {
        if (this.failure !== undefined) throw this.failure;
        return Buffer.alloc(0);
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

  constructor(private readonly live: LiveDownload, private readonly fh: fs.FileHandle) {}

  async read(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < n) {
      const b = await this.live.readAt(this.fh, this.pos, n - got);
      if (!b.length) break;
      parts.push(b);
      got += b.length;
      this.pos += b.length;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  stream(n: number): Readable {
    let left = n;
    // Each piece is whatever is written by now (up to 1 MiB), passed on as read: no waiting to fill it, no copying.
    const next = async (size: number) => {
      const b = await this.live.readAt(this.fh, this.pos, size);
      this.pos += b.length;
      return b;
    };
    return new Readable({
      highWaterMark: PIECE,
      read() {
        if (left === 0) return void this.push(null);
        next(Math.min(left, PIECE)).then(
          (b) => {
            if (!b.length) return void this.destroy(new NotStreamable('the bytes end inside a member'));
            left -= b.length;
            this.push(b);
          },
          (e: Error) => this.destroy(e),
        );
      },
    });
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
