// Bytes handed on piece by piece out of a buffer the giver uses again, and streams made of them. Where touching new
// memory is slow (virtual machines fault on every fresh page), a download or an unpack that allocates a buffer per
// read costs more than the work itself; pieces let the bytes go from socket or file to disk through a few kept buffers.
import * as fs from 'node:fs/promises';
import { Readable } from 'node:stream';

/** Takes one piece; the piece is only valid until this returns, or until the promise it returns settles. */
export type PieceSink = (piece: Buffer) => void | Promise<void>;

/** Hands every piece of some bytes to `each`, in order; settles when the last has been taken, or with what failed. */
export type Pump = (each: PieceSink) => Promise<void>;

/**
 * A stream over a pump, for readers that want a stream: each piece is copied (a stream's reader may keep what it is
 * given), and the pump waits while the stream is full. Readers that take pieces use `pump` itself instead, once,
 * and never the stream. Destroying the stream calls `cancel`.
 */
export class PieceStream extends Readable {
  private wake?: () => void;
  private started = false;

  constructor(
    readonly pump: Pump,
    private readonly cancel: () => void = () => undefined,
  ) {
    super({ highWaterMark: 1 << 20 });
  }

  override _read(): void {
    if (this.started) {
      const w = this.wake;
      this.wake = undefined;
      w?.();
      return;
    }
    this.started = true;
    this.pump((piece) => {
      if (this.destroyed) throw new Error('the reader stopped');
      if (!this.push(Buffer.from(piece))) return new Promise<void>((resolve) => (this.wake = resolve));
    }).then(
      () => this.push(null),
      (e: unknown) => this.destroy(e as Error),
    );
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.cancel();
    const w = this.wake;
    this.wake = undefined;
    w?.();
    cb(err);
  }
}

/** The pieces of a stream: a PieceStream's own pump (no copies), or each chunk of any other stream. */
export function piecesOf(body: Readable): Pump {
  if (body instanceof PieceStream) return body.pump;
  return async (each) => {
    for await (const chunk of body) await each(chunk as Buffer);
  };
}

/**
 * Runs `pump` into `each`. What `each` throws (the reader's own failure: a full disk, a limit) comes out as it is;
 * what the pump fails with comes out through `mapOther` (said as the source's failure).
 */
export async function pumpInto(pump: Pump, each: PieceSink, mapOther: (e: unknown) => unknown): Promise<void> {
  let own: unknown;
  const mine = (e: unknown): never => {
    own = e;
    throw e;
  };
  try {
    await pump((piece) => {
      try {
        const held = each(piece);
        return held instanceof Promise ? held.catch(mine) : held;
      } catch (e) {
        return mine(e);
      }
    });
  } catch (e) {
    throw e === own ? e : mapOther(e);
  }
}

/** Writes `bytes` whole at the file's position: a write may take fewer (a nearly full disk), the rest goes again. */
export async function writeWhole(fh: { write(b: Buffer): Promise<{ bytesWritten: number }> }, bytes: Buffer, landed?: (n: number) => void): Promise<void> {
  for (let rest = bytes; rest.length; ) {
    const { bytesWritten } = await fh.write(rest);
    landed?.(bytesWritten);
    rest = rest.subarray(bytesWritten);
  }
}

/** Buffers a BatchedWriter gathers pieces into before each write, kept for the next write and the next writer. */
const BATCH_BYTES = 1 << 20;
const BATCHES_PER_WRITER = 3;
const spareBatches: Buffer[] = [];

/**
 * Writes pieces to an open file through a few 1 MiB buffers used again and again: a write per piece costs more trips
 * through the thread pool than the bytes themselves, and new memory costs more to fill than these copies. Full
 * buffers are written, the last one at the end; with `eager`, whatever has arrived is written as soon as no write is
 * under way, so a reader following the file never waits for a buffer to fill. The giver waits only when every buffer
 * is still being written. `landed` hears each write that has landed.
 */
export class BatchedWriter {
  /** Buffers waiting for their write, in order; the last may still be filling. */
  private readonly queue: { buf: Buffer; filled: number }[] = [];
  private readonly free: Buffer[] = [];
  private taken = 0;
  private writing: Promise<void> | undefined;
  private inFlight: { buf: Buffer; filled: number } | undefined;
  private failure: { error: unknown } | undefined;
  private freed?: () => void;
  /** Set once `end` began: a piece that still waits for a buffer then fails instead of writing to a closed file. */
  private ending = false;

  constructor(
    private readonly fh: fs.FileHandle,
    private readonly opts: { landed?: (n: number) => void; eager?: boolean } = {},
  ) {}

  /** Takes a copy of `piece`; a promise when the giver must wait for a buffer to come free. Throws once a write failed. */
  put(piece: Buffer): Promise<void> | undefined {
    if (this.failure) throw this.failure.error;
    if (this.ending) throw new Error('the file was closed before it was written');
    for (let at = 0; at < piece.length; ) {
      let last = this.queue.at(-1);
      // A buffer being written takes no more bytes: they would be dropped with it once its write lands.
      if (!last || last.filled === last.buf.length || last === this.inFlight) {
        const buf = this.free.pop() ?? (this.taken < BATCHES_PER_WRITER ? (this.taken++, spareBatches.pop() ?? Buffer.allocUnsafe(BATCH_BYTES)) : undefined);
        if (!buf) {
          this.kick();
          return new Promise<void>((resolve) => (this.freed = resolve)).then(() => this.put(piece.subarray(at)));
        }
        this.queue.push((last = { buf, filled: 0 }));
      }
      const n = piece.copy(last.buf, last.filled, at);
      last.filled += n;
      at += n;
    }
    this.kick();
    return undefined;
  }

  /** Writes what is left and closes the file; throws the first write's failure. */
  async close(): Promise<void> {
    await this.end();
    if (this.failure) throw this.failure.error;
  }

  /** Writes what was taken (unless a write failed) and closes the file. */
  async end(): Promise<void> {
    this.ending = true;
    this.kick();
    while (this.writing) await this.writing;
    this.free.push(...this.queue.splice(0).map((q) => q.buf));
    spareBatches.push(...this.free.splice(0));
    await this.fh.close().catch(() => undefined);
  }

  /** Starts writing the oldest buffer with bytes in it, unless a write is under way. */
  private kick(): void {
    if (this.writing || this.failure) return;
    const next = this.queue[0];
    if (!next || next.filled === 0) return;
    if (next.filled < next.buf.length && !this.opts.eager && !this.ending) return;
    this.inFlight = next;
    this.writing = writeWhole(this.fh, next.buf.subarray(0, next.filled), this.opts.landed).then(
      () => {
        this.queue.shift();
        this.free.push(next.buf);
        this.done();
      },
      (e: unknown) => {
        this.failure = { error: e };
        this.done();
      },
    );
  }

  private done(): void {
    this.writing = undefined;
    this.inFlight = undefined;
    const f = this.freed;
    this.freed = undefined;
    f?.();
    this.kick();
  }
}

/** How much of a file one read takes. */
const FILE_PIECE = 1 << 20;

/**
 * Bytes [start, end) of a file (a path, opened and closed here, or an open handle) as pieces, read through one
 * buffer: `into` when given (a caller reading several ranges one after another), else one of its own. A file that
 * ends before `end` just ends there.
 */
export function filePieces(file: string | fs.FileHandle, opts: { start?: number; end?: number; into?: Buffer } = {}): Pump {
  return async (each) => {
    const fh = typeof file === 'string' ? await fs.open(file, 'r') : file;
    try {
      const into = opts.into ?? Buffer.allocUnsafe(FILE_PIECE);
      for (let pos = opts.start ?? 0, end = opts.end ?? Infinity; pos < end; ) {
        const { bytesRead } = await fh.read(into, 0, Math.min(into.length, end - pos), pos);
        if (!bytesRead) return;
        pos += bytesRead;
        await each(into.subarray(0, bytesRead));
      }
    } finally {
      if (typeof file === 'string') await fh.close();
    }
  };
}
