import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftBuilds, recordBuilds, writePrefixFiles, writeReceipt } from '../../src/prefix/prefix-writer.js';
import { readReceipt } from '../../src/prefix/receipt.js';
import { RECEIPT_SCHEMA, type Receipt } from '../../src/records/receipt.js';
import { verifyPrefix } from '../../src/prefix/verify.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-writer-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function prefixWithReceipt(name: string): Promise<string> {
  const prefix = path.join(dir, name);
  await fs.mkdir(path.join(prefix, 'lib'), { recursive: true });
  const receipt: Receipt = {
    schema: RECEIPT_SCHEMA,
    tool: { name: 'xpu-setup', version: 'test' },
    platform: 'linux-x64',
    prefix,
    installedAt: '2026-01-01T00:00:00.000Z',
    planKey: 'k',
    components: [],
    archives: [],
    files: [],
  };
  await writeReceipt(prefix, receipt);
  return prefix;
}

describe('build outputs go through the prefix writer into the receipt', () => {
  it('records the library and its stamp, so verifyPrefix notices a changed library', async () => {
    const prefix = await prefixWithReceipt('a');
    await fs.writeFile(path.join(prefix, 'lib', 'libdrv-1.so'), 'driver one');
    await fs.writeFile(path.join(prefix, 'lib', 'drv.build.json'), '{}');
    const r = await recordBuilds(prefix, (await readReceipt(prefix))!, { refdriver: { output: path.join(prefix, 'lib', 'libdrv-1.so'), stamp: path.join(prefix, 'lib', 'drv.build.json') } });
    expect(await readReceipt(prefix)).toEqual(r);
    expect(r.builds).toEqual({ refdriver: ['lib/libdrv-1.so', 'lib/drv.build.json'] });
    expect(r.files.map((f) => f.path)).toEqual(['lib/drv.build.json', 'lib/libdrv-1.so']);
    expect(await verifyPrefix(prefix, (await readReceipt(prefix))!)).toEqual([]);
    await fs.writeFile(path.join(prefix, 'lib', 'libdrv-1.so'), 'tampered');
    expect(await verifyPrefix(prefix, (await readReceipt(prefix))!)).toEqual([{ path: 'lib/libdrv-1.so', problem: 'changed' }]);
  });

  it('a rebuild under a new name removes the old library; dropping the role removes its files', async () => {
    const prefix = await prefixWithReceipt('b');
    const lib = (n: string) => path.join(prefix, 'lib', n);
    await fs.writeFile(lib('libdrv-1.so'), 'one');
    const one = await recordBuilds(prefix, (await readReceipt(prefix))!, { refdriver: { output: lib('libdrv-1.so') } });
    await fs.writeFile(lib('libdrv-2.so'), 'two');
    const two = await recordBuilds(prefix, one, { refdriver: { output: lib('libdrv-2.so') } });
    expect(one.builds).toEqual({ refdriver: ['lib/libdrv-1.so'] });
    expect(await fs.readdir(path.join(prefix, 'lib'))).toEqual(['libdrv-2.so']);
    const r = await recordBuilds(prefix, two, {}, ['refdriver']);
    expect(await fs.readdir(path.join(prefix, 'lib'))).toEqual([]);
    expect(r.builds).toBeUndefined();
    expect(r.files).toEqual([]);
  });

  it('a draft that drops a build removes nothing: its files leave once the receipt that stops listing them is written', async () => {
    const prefix = await prefixWithReceipt('d');
    const lib = path.join(prefix, 'lib', 'libdrv-1.so');
    await fs.writeFile(lib, 'one');
    const built = await recordBuilds(prefix, (await readReceipt(prefix))!, { refdriver: { output: lib } });
    const draft = await draftBuilds(prefix, { receipt: built, obsolete: [] }, {}, ['refdriver']);
    expect(draft.obsolete).toEqual(['lib/libdrv-1.so']);
    // The receipt on disk still lists the library, and it is there.
    expect(await verifyPrefix(prefix, (await readReceipt(prefix))!)).toEqual([]);
    await writePrefixFiles(prefix, draft.receipt, draft.obsolete);
    expect(await fs.readdir(path.join(prefix, 'lib'))).toEqual([]);
    expect((await readReceipt(prefix))!.files).toEqual([]);
  });

  it('never removes a recorded path that leaves the prefix (a tampered receipt)', async () => {
    const prefix = await prefixWithReceipt('c');
    const victim = path.join(dir, 'victim.so');
    await fs.writeFile(victim, 'keep me');
    const receipt = (await readReceipt(prefix))!;
    receipt.builds = { refdriver: ['../victim.so'] };
    await writeReceipt(prefix, receipt);
    await recordBuilds(prefix, receipt, {}, ['refdriver']);
    expect(await fs.readFile(victim, 'utf8')).toBe('keep me');
  });
});
