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
