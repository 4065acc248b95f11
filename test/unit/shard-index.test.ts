// The shard index reader: names found by their encoded keys only where an entry starts, whatever their length.
import { encode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { decodeShardIndex } from '../../src/index/shards.js';

const digest = (n: number) => Buffer.alloc(32, n);

describe('decodeShardIndex', () => {
  it('finds short, long and prefix-sharing names, and no name hidden in another entry', async () => {
    const long = 'x'.repeat(40);
    // "a" followed by the bin header sits inside the key "ba" and inside a digest; neither is an entry of "a".
    const sneaky = Buffer.concat([Buffer.alloc(10, 7), Buffer.from([0xa1, 0x61, 0xc4, 0x20]), Buffer.alloc(18, 7)]);
    const raw = Buffer.from(encode({ version: 1, info: { base_url: 'https://files.example/linux-64/', shards_base_url: 'https://shards.example/' }, shards: { ba: sneaky, ab: digest(2), [long]: digest(3), a: digest(1) } }));
    const idx = await decodeShardIndex(raw, 'http://h/ch/linux-64/repodata_shards.msgpack.zst');
    expect(idx).toMatchObject({ baseUrl: 'https://files.example/linux-64/', shardsBaseUrl: 'https://shards.example/', size: 4 });
    expect([idx.shardOf('a'), idx.shardOf('ab'), idx.shardOf(long), idx.shardOf('b'), idx.shardOf('ba')]).toEqual([
      '01'.repeat(32), '02'.repeat(32), '03'.repeat(32), undefined, sneaky.toString('hex'),
    ]);
  });

  it('refuses an entry whose value is not a 32-byte digest, naming it', async () => {
    const raw = Buffer.from(encode({ info: {}, shards: { 'level-zero': 'not bytes' } }));
    await expect(decodeShardIndex(raw, 'http://h/x/repodata_shards.msgpack.zst')).rejects.toMatchObject({ code: 'BAD_INDEX', message: expect.stringContaining('the shard of level-zero has no sha256') });
  });
});
