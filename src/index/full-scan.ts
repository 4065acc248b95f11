// A full repodata.json.zst scanned for a few names with the system's libzstd, decompressed straight into the scanner's
// own reused buffer (hundreds of MB handed over in fresh chunks cost a page fault per 4 KiB), in a worker thread when
// the bundle's worker file is there: two subdirs then decompress and scan on two cores while this thread downloads.
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { openZstdLibrary, ZstdInflater, type ZstdLibrary } from '../formats/zstd-lib.js';
import { piecesOf } from '../base/pieces.js';
import type { Repodata } from './repodata.js';
import { DecodedTooLarge, RepodataScanner } from './repodata-scan.js';
import { PipeAborted, PipeReader, PipeWriter, type SharedPipeMemory } from './shared-pipe.js';

/** Output room asked of the scanner for each call: a zstd block is at most 128 KiB. */
const OUTPUT_BYTES = 256 * 1024;
/** Compressed bytes in flight to the worker: enough to keep it busy (more measured no faster), little memory. */
const PIPE_BYTES = 1 << 20;
const EMPTY = new Uint8Array(0);
/**
 * Compressed bodies this large and larger are scanned in a worker thread: starting one costs about 55 ms of CPU, what
 * this thread spends on some 10 MB of them (a small channel's index is scanned here, at once).
 */
const WORKER_BYTES = 8 << 20;
/** The bundle's worker file (scripts/bundle.mjs), beside the bundle. */
const WORKER_FILE = 'xpu-setup-scan-worker.cjs';

/** One scan: zstd decompressed into the scanner's buffer, scanned there. Owns native memory until `result` or `close`. */
export class ZstdRepodataScan {
  private readonly scanner: RepodataScanner;
  private readonly inflater: ZstdInflater;

  constructor(lib: ZstdLibrary, names: Iterable<string>, maxBytes = Infinity) {
    this.scanner = new RepodataScanner(names, maxBytes);
    this.inflater = new ZstdInflater(lib);
  }

  /** One decompression call on `src`: how much of it was taken, and whether output may still be held back. */
  step(src: Uint8Array): { read: number; more: boolean } {
    const dst = this.scanner.space(OUTPUT_BYTES);
    const { read, written } = this.inflater.inflate(src, dst);
    this.scanner.wrote(written);
    return { read, more: written === dst.length };
  }

  feed(src: Uint8Array): void {
    for (let at = 0; ; ) {
      const { read, more } = this.step(src.subarray(at));
      at += read;
      if (at >= src.length && !more) return;
    }
  }

  /** The wanted records, once the input has ended where a zstd frame and the JSON text end. */
  result(): Repodata {
    try {
      while (this.step(EMPTY).more);
      this.inflater.finish();
      return this.scanner.result();
    } finally {
      this.close();
    }
  }

  close(): void {
    this.inflater.close();
  }
}

interface WorkerInput {
  library: string | null;
  names: string[];
  maxBytes: number;
  pipe: SharedPipeMemory;
}

type WorkerAnswer = { doc: Repodata } | { error: string; limit?: number };

/**
 * Scans a repodata.json.zst body for `names`: in a worker thread started from `opts.worker` (by default the bundle's
 * file beside it, for a body of unknown size or one of WORKER_BYTES or more; false: none), else on this thread.
 * Errors of the body pass through as they are.
 */
export async function scanZstdRepodata(
  body: Readable,
  names: readonly string[],
  lib: ZstdLibrary,
  opts: { size?: number; worker?: string | false; maxBytes?: number } = {},
): Promise<Repodata> {
  const worker = opts.worker ?? (worthAWorker(opts.size) ? bundledWorker() : undefined);
  const maxBytes = opts.maxBytes ?? Infinity;
  if (!worker) {
    const scan = new ZstdRepodataScan(lib, names, maxBytes);
    try {
      await eachChunk(body, (chunk) => scan.feed(chunk));
    } catch (e) {
      scan.close();
      throw e;
    }
    return scan.result();
  }
  const pipe = new PipeWriter(PIPE_BYTES);
  const input: WorkerInput = { library: lib.name, names: [...names], maxBytes, pipe: pipe.memory };
  const thread = new Worker(worker, { workerData: input });
  const answer = new Promise<Repodata>((resolve, reject) => {
    thread.once('message', (m: WorkerAnswer) => ('doc' in m ? resolve(m.doc) : reject(m.limit !== undefined ? new DecodedTooLarge(m.limit) : new Error(m.error))));
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the scan's worker thread ended (exit ${code}) without an answer`)));
  });
  // A worker that failed stops the pipe, so a write waiting for room ends.
  answer.catch(() => pipe.abort());
  try {
    try {
      await eachChunk(body, (chunk) => pipe.write(chunk));
      pipe.close();
    } catch (e) {
      pipe.abort();
      // PipeAborted: the worker failed, and its answer says why.
      if (!(e instanceof PipeAborted)) throw e;
    }
    return await answer;
  } finally {
    void thread.terminate();
  }
}

/**
 * Hands each piece of the body to `take` as it arrives (straight from the buffer it was read into when the body is
 * made of pieces); the body waits while a promise `take` returned is pending. After `take` fails, the rest is read all
 * the same: a body that then fails itself (a cached copy whose sha256 is checked at its end) is the better cause, and
 * is thrown instead.
 */
async function eachChunk(body: Readable, take: (piece: Buffer) => Promise<void> | void): Promise<void> {
  let failure: { error: unknown } | undefined;
  const failed = (error: unknown) => void (failure ??= { error });
  await piecesOf(body)((piece) => {
    if (failure) return undefined;
    try {
      return take(piece)?.catch(failed);
    } catch (e) {
      return failed(e);
    }
  });
  if (failure) throw failure.error;
}

/** Whether a body of this compressed size (undefined: not known before it is read) is scanned in a worker thread. */
export function worthAWorker(size: number | undefined): boolean {
  return size === undefined || size >= WORKER_BYTES;
}

function bundledWorker(): string | undefined {
  const file = fileURLToPath(new URL(`./${WORKER_FILE}`, import.meta.url));
  return existsSync(file) ? file : undefined;
}

/** The worker thread's side: decompresses and scans what arrives through the pipe, and answers once. */
export function runScanWorker(): void {
  const { library, names, maxBytes, pipe: memory } = workerData as WorkerInput;
  const pipe = new PipeReader(memory);
  let scan: ZstdRepodataScan | undefined;
  let answer: WorkerAnswer;
  try {
    const lib = openZstdLibrary(library);
    if (!lib) throw new Error(`zstd (${library ?? 'the program\'s own'}) could not be opened in the worker thread`);
    scan = new ZstdRepodataScan(lib, names, maxBytes);
    for (let run = pipe.read(); run; run = pipe.read()) pipe.consumed(scan.step(run).read);
    answer = { doc: scan.result() };
  } catch (e) {
    scan?.close();
    pipe.abort();
    answer = { error: (e as Error).message, ...(e instanceof DecodedTooLarge ? { limit: e.limit } : {}) };
  }
  parentPort!.postMessage(answer);
}
