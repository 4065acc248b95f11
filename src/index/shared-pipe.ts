// A one-way byte pipe from this thread to a worker thread through shared memory: the bytes are copied once, into a
// ring that is reused, where a message per chunk would copy each into fresh memory on the other side.

/**
 * Control words: bytes waiting in the ring; the pipe's state; a counter bumped on every change, which waits watch; and
 * what each end waits for (0: not waiting), so the other wakes it only when that is there: a wake per network chunk
 * cost more than copying the chunk.
 */
const USED = 0;
const STATE = 1;
const CHANGES = 2;
const READER_WANTS = 3;
const WRITER_WANTS = 4;
const CONTROL_WORDS = 5;
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
  /** How much a waiting end waits for before it is woken: a quarter of the ring. */
  protected readonly batch: number;

  constructor(readonly memory: SharedPipeMemory) {
    this.ring = new Uint8Array(memory.ring);
    this.control = new Int32Array(memory.control);
    this.batch = Math.max(1, this.ring.length >> 2);
  }

  /** Stops the pipe for both ends: the other one's next read, write or wait throws PipeAborted. */
  abort(): void {
    Atomics.store(this.control, STATE, ABORTED);
    this.changed(true);
  }

  /** Bumps the change counter; wakes the other end when `wake`. */
  protected changed(wake: boolean): void {
    Atomics.add(this.control, CHANGES, 1);
    if (wake) Atomics.notify(this.control, CHANGES);
  }

  protected state(): number {
    return Atomics.load(this.control, STATE);
  }

  protected used(): number {
    return Atomics.load(this.control, USED);
  }
}

/** The writing end, on the main thread: waits for room without blocking it. */
export class PipeWriter extends PipeEnd {
  constructor(size: number) {
    super({ ring: new SharedArrayBuffer(size), control: new SharedArrayBuffer(CONTROL_WORDS * Int32Array.BYTES_PER_ELEMENT) });
  }

  /**
   * Copies `chunk` into the ring; when it does not all fit, answers a promise of the rest written. Throws PipeAborted
   * (at once, or through the promise) once the reader stopped.
   */
  write(chunk: Uint8Array): Promise<void> | undefined {
    const at = this.offer(chunk);
    return at < chunk.length ? this.writeRest(chunk, at) : undefined;
  }

  private async writeRest(chunk: Uint8Array, from: number): Promise<void> {
    for (let at = from; at < chunk.length; ) {
      const seen = Atomics.load(this.control, CHANGES);
      if (this.state() === ABORTED) throw new PipeAborted();
      if (this.used() < this.ring.length) {
        at += this.offer(chunk.subarray(at));
        continue;
      }
      Atomics.store(this.control, WRITER_WANTS, Math.min(this.batch, chunk.length - at));
      // A change since `seen` (the reader took some) ends the wait at once.
      const wait = waitAsync(this.control, CHANGES, seen);
      if (wait.async) await wait.value;
      Atomics.store(this.control, WRITER_WANTS, 0);
    }
  }

  /** Copies as much of `chunk` as there is room for; answers how much. */
  private offer(chunk: Uint8Array): number {
    if (this.state() === ABORTED) throw new PipeAborted();
    const size = this.ring.length;
    let i = 0;
    for (let room = size - this.used(); i < chunk.length && room > 0; ) {
      const n = Math.min(room, chunk.length - i, size - this.at);
      this.ring.set(chunk.subarray(i, i + n), this.at);
      this.at = (this.at + n) % size;
      i += n;
      room -= n;
      const used = Atomics.add(this.control, USED, n) + n;
      const wants = Atomics.load(this.control, READER_WANTS);
      this.changed(wants > 0 && used >= wants);
    }
    return i;
  }

  /** No more bytes: the reader gets what is in the ring, then the end. */
  close(): void {
    Atomics.compareExchange(this.control, STATE, OPEN, CLOSED);
    this.changed(true);
  }
}

/** The reading end, in the worker thread, which may block. */
export class PipeReader extends PipeEnd {
  /**
   * The next bytes in the ring, in one piece: once a batch of them is there, or the writer closed (waiting until
   * then); null once the writer closed and all were read.
   */
  read(): Uint8Array | null {
    for (;;) {
      const seen = Atomics.load(this.control, CHANGES);
      // The state before the count: bytes written before a close are all counted once the close is seen.
      const state = this.state();
      if (state === ABORTED) throw new PipeAborted();
      const used = this.used();
      if (used >= this.batch || (used > 0 && state === CLOSED)) return this.ring.subarray(this.at, this.at + Math.min(used, this.ring.length - this.at));
      if (state === CLOSED) return null;
      Atomics.store(this.control, READER_WANTS, this.batch);
      // A change since `seen` ends the wait at once; a close or an abort always wakes it.
      Atomics.wait(this.control, CHANGES, seen);
      Atomics.store(this.control, READER_WANTS, 0);
    }
  }

  /** Whether `read` would answer now, without waiting. */
  ready(): boolean {
    return this.state() !== OPEN || this.used() >= this.batch;
  }

  /** Gives the first `n` bytes of what `read` answered back to the writer. */
  consumed(n: number): void {
    if (!n) return;
    this.at = (this.at + n) % this.ring.length;
    const room = this.ring.length - (Atomics.sub(this.control, USED, n) - n);
    const wants = Atomics.load(this.control, WRITER_WANTS);
    this.changed(wants > 0 && room >= wants);
  }
}
