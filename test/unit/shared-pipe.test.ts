// The shared-memory pipe a full repodata scan feeds its worker through: bytes come out in order across the ring's end,
// a writer with no room waits until the reader gives some back, a close ends the reading after the last byte, and
// either end stopping stops the other. Both ends run on this thread here; the reader reads only once it is ready,
// since it would block this thread otherwise.
import { describe, expect, it } from 'vitest';
import { PipeAborted, PipeReader, PipeWriter } from '../../src/index/shared-pipe.js';

const bytes = (from: number, n: number) => Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);

describe('shared pipe', () => {
  it('hands over bytes in order across the end of the ring; a writer with no room waits for the reader', async () => {
    const writer = new PipeWriter(16);
    const reader = new PipeReader(writer.memory);
    const sent = bytes(0, 50);
    let done = false;
    const writing = (async () => {
      await writer.write(sent.subarray(0, 7));
      await writer.write(sent.subarray(7));
      writer.close();
      done = true;
    })();
    const got: number[] = [];
    while (got.length < sent.length) {
      while (!reader.ready()) await new Promise((r) => setImmediate(r));
      // The ring holds 16 bytes: the writer waits on the rest until the reader gives room back.
      if (got.length === 0) expect(done).toBe(false);
      const run = reader.read()!;
      expect(run.length).toBeGreaterThan(0);
      // Take at most 5 at a time, so the writer's position and the reader's differ across the wrap.
      const n = Math.min(5, run.length);
      got.push(...run.subarray(0, n));
      reader.consumed(n);
    }
    await writing;
    expect(Uint8Array.from(got)).toEqual(sent);
    expect(reader.ready()).toBe(true);
    expect(reader.read()).toBeNull();
  });

  it('a close is seen only after every byte written before it', async () => {
    const writer = new PipeWriter(8);
    const reader = new PipeReader(writer.memory);
    await writer.write(bytes(1, 8));
    writer.close();
    expect(reader.ready()).toBe(true);
    const run = reader.read()!;
    expect([...run]).toEqual([...bytes(1, 8)]);
    reader.consumed(run.length);
    expect(reader.read()).toBeNull();
  });

  it('a reader that stops ends a write waiting for room, and the writer stopping ends the reading', async () => {
    const writer = new PipeWriter(4);
    const reader = new PipeReader(writer.memory);
    const waiting = writer.write(bytes(0, 10));
    await new Promise((r) => setImmediate(r));
    reader.abort();
    await expect(waiting).rejects.toBeInstanceOf(PipeAborted);
    expect(() => writer.write(bytes(0, 1))).toThrow(PipeAborted);

    const w2 = new PipeWriter(4);
    const r2 = new PipeReader(w2.memory);
    await w2.write(bytes(0, 2));
    w2.abort();
    expect(() => r2.read()).toThrow(PipeAborted);
  });
});
