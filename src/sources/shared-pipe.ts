// A one-way byte pipe from this thread to a worker thread through shared memory: the bytes are copied once, into a
// ring that is reused, where a message per chunk would copy each into fresh memory on the other side.

/** Control words: bytes waiting in the ring, the pipe's state, and a counter bumped on every change (what waits watch). */
const USED = 0;
const STATE = 1;
const CHANGES = 2;
const OPEN = 0;
const CLOSED = 1;
const ABORTED = 2;

/** Node 16 and later have it; TypeScript declares it from ES2024 on. */
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: unknown } }).waitAsync;

/** What the worker thread is handed to read the pipe. */
export interface SharedPipeMemory {
  ring: SharedArrayBuffer;
  control: SharedArrayBuffer;
}

/** The other side stopped the pipe: the writer's reader failed, or the reader's writer did. */
export class PipeAborted extends Error {
  constructor() {
    super('the other end stopped the pipe');
  }
}

abstract class PipeEnd {
  protected readonly ring: Uint8Array;
  protected readonly control: Int32Array;
  /** Where this end writes or reads next. */
  protected at = 0;

  constructor(readonly memory: SharedPipeMemory) {
    this.ring = new Uint8Array(memory.ring);
    this.control = new Int32Array(memory.control);
  }

  /** Stops the pipe for both ends: the other one's next read, write or wait throws PipeAborted. */
  abort(): void {
    Atomics.store(this.control, STATE, ABORTED);
    this.changed();
  }

  protected changed(): void {
    Atomics.add(this.control, CHANGES, 1);
    Atomics.notify(this.control, CHANGES);
  }

  protected aborted(): boolean {
    return Atomics.load(this.control, STATE) === ABORTED;
  }
}

/** The writing end, on the main thread: waits for room without blocking it. */
export class PipeWriter extends PipeEnd {
  constructor(size: number) {
    super({ ring: new SharedArrayBuffer(size), control: new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT) });
  }

  async write(chunk: Uint8Array): Promise<void> {
    const size = this.ring.length;
    for (let i = 0; i < chunk.length; ) {
      const seen = Atomics.load(this.control, CHANGES);
      if (this.aborted()) throw new PipeAborted();
      const room = size - Atomics.load(this.control, USED);
      if (room === 0) {
        const wait = waitAsync(this.control, CHANGES, seen);
        if (wait.async) await wait.value;
        continue;
      }
      const n = Math.min(room, chunk.length - i, size - this.at);
      this.ring.set(chunk.subarray(i, i + n), this.at);
      this.at = (this.at + n) % size;
      i += n;
      Atomics.add(this.control, USED, n);
      this.changed();
    }
  }

  /** No more bytes: the reader gets what is in the ring, then the end. */
  close(): void {
    Atomics.compareExchange(this.control, STATE, OPEN, CLOSED);
    this.changed();
  }
}

/** The reading end, in the worker thread, which may block. */
export class PipeReader extends PipeEnd {
  /** The next bytes in the ring, in one piece (waiting for some); null once the writer closed and all were read. */
  read(): Uint8Array | null {
    for (;;) {
      const seen = Atomics.load(this.control, CHANGES);
      // The state before the count: bytes written before a close are all counted once the close is seen.
      const state = Atomics.load(this.control, STATE);
      if (state === ABORTED) throw new PipeAborted();
      const used = Atomics.load(this.control, USED);
      if (used > 0) return this.ring.subarray(this.at, this.at + Math.min(used, this.ring.length - this.at));
      if (state === CLOSED) return null;
      Atomics.wait(this.control, CHANGES, seen);
    }
  }

  /** Whether `read` would answer now, without waiting: bytes are there, or the end. */
  ready(): boolean {
    return Atomics.load(this.control, STATE) !== OPEN || Atomics.load(this.control, USED) > 0;
  }

  /** Gives the first `n` bytes of what `read` answered back to the writer. */
  consumed(n: number): void {
    if (!n) return;
    this.at = (this.at + n) % this.ring.length;
    Atomics.sub(this.control, USED, n);
    this.changed();
  }
}
