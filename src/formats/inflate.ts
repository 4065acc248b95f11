// Raw deflate (a zip member's data) inflated piece by piece into one output buffer used again for every piece.
import * as zlib from 'node:zlib';
import type { PieceSink, Pump } from '../base/pieces.js';

/** Output of one inflate step. */
const OUT_BYTES = 1 << 20;
const EMPTY = Buffer.alloc(0);

/** The native inflater under a zlib stream: what Node's own synchronous zlib functions drive. */
interface NativeInflater {
  writeSync(flush: number, input: Buffer, inOffset: number, inLength: number, out: Buffer, outOffset: number, outLength: number): void;
}

type InflateRawInside = zlib.InflateRaw & { _handle?: NativeInflater; _writeState?: Uint32Array };

export interface InflateOptions {
  /** Through the public stream (a fresh buffer per output piece) even where the native inflater can be driven. */
  viaStream?: boolean;
}

/**
 * Inflates what `input` gives, handing the output to `each` piece by piece. zlib's streams put every output piece in
 * new memory, which costs more than inflating where fresh pages fault slowly (about 180 ms against 18 ms for 24 MB
 * here); so the inflater is driven directly, into one buffer, through the handle and write state Node's zlib keeps on
 * every stream (Node 20 to 24 alike). Where they are missing the stream is used. A failure of the inflater (corrupt or
 * cut data) comes out through `corrupt`; what `input` or `each` throw comes out as it is.
 */
export async function inflateRawPieces(input: Pump, each: PieceSink, corrupt: (cause: unknown) => Error, opts: InflateOptions = {}): Promise<void> {
  const z = zlib.createInflateRaw() as InflateRawInside;
  // A failure is read from the stream where it happens; its 'error' event comes later and says nothing new.
  z.on('error', () => undefined);
  const native = z._handle;
  const state = z._writeState;
  try {
    if (opts.viaStream || typeof native?.writeSync !== 'function' || !(state instanceof Uint32Array)) return await viaStream(z, input, each, corrupt);
    const out = Buffer.allocUnsafe(OUT_BYTES);
    const step = async (flush: number, piece: Buffer): Promise<void> => {
      for (let at = 0; ; ) {
        native.writeSync(flush, piece, at, piece.length - at, out, 0, out.length);
        if (z.destroyed) throw corrupt(z.errored ?? new Error('the inflater stopped'));
        const outLeft = state[0]!;
        const inLeft = state[1]!;
        const took = piece.length - at - inLeft;
        const made = out.length - outLeft;
        at += took;
        if (made) await each(out.subarray(0, made));
        // Output room left over means all input was taken (or the data ended before it: the size check says so).
        if (outLeft !== 0 && (at === piece.length || (took === 0 && made === 0))) return;
      }
    };
    await input((piece) => step(zlib.constants.Z_NO_FLUSH, piece));
    // Data that stops before its last block fails here ("unexpected end of file").
    await step(zlib.constants.Z_FINISH, EMPTY);
  } finally {
    z.destroy();
  }
}

/** The same through the stream: each input piece copied in, its output handed on before the next goes in. */
async function viaStream(z: zlib.InflateRaw, input: Pump, each: PieceSink, corrupt: (cause: unknown) => Error): Promise<void> {
  const made: Buffer[] = [];
  z.on('data', (chunk: Buffer) => made.push(chunk));
  // A failed inflater may never call back a write under way: every wait below ends with its failure too.
  const failed = new Promise<never>((_, reject) => z.once('error', (e) => reject(corrupt(e))));
  failed.catch(() => undefined);
  const ended = new Promise<void>((resolve) => z.once('end', resolve));
  const handOn = async () => {
    for (let chunk = made.shift(); chunk; chunk = made.shift()) await each(chunk);
  };
  await input(async (piece) => {
    await Promise.race([new Promise<void>((resolve) => z.write(Buffer.from(piece), () => resolve())), failed]);
    await handOn();
  });
  z.end();
  await Promise.race([ended, failed]);
  await handOn();
}
