// What a re-run trusts and what makes it look again: file size and mtime against the receipt, `--verify`, and the
// fingerprint of the probe's inputs (driver libraries, environment).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReceiptFile } from '../../src/records/receipt.js';
import { verifyPrefix } from '../../src/prefix/verify.js';
import { driverCandidates, proofInputs } from '../../src/probe/inputs.js';
import { libcPathFromMaps, parseLibcBanner } from '../../src/platform/linux.js';
import { recentPlan, rememberPlan } from '../../src/plan/recent.js';
import type { InstallPlan } from '../../src/records/plan.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function temp(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-noop-'));
  dirs.push(d);
  return d;
}

/** A prefix with one file and the receipt entry an install would write for it. */
async function prefixWith(content: string): Promise<{ prefix: string; file: string; rec: ReceiptFile & { mtimeMs: number } }> {
  const prefix = await temp();
  const file = path.join(prefix, 'lib', 'libze_loader.so.1');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  // A whole second, so a test can put the same mtime back exactly.
  await fs.utimes(file, 1_700_000_000, 1_700_000_000);
  const st = await fs.stat(file);
  const rec = { path: 'lib/libze_loader.so.1', sha256: createHash('sha256').update(content).digest('hex'), size: st.size, mtimeMs: st.mtimeMs };
  return { prefix, file, rec };
}

describe('the receipt is input: nothing it names outside the prefix is read', () => {
  it('a "../" path, an absolute one, one through a linked directory and a link where a file was installed are never read', async () => {
    const { prefix, rec } = await prefixWith('inside');
    const outside = await temp();
    await fs.writeFile(path.join(outside, 'secret'), 'outside');
    await fs.symlink(outside, path.join(prefix, 'via'));
    await fs.symlink(path.join(outside, 'secret'), path.join(prefix, 'lib', 'linked.so'));
    const sha = createHash('sha256').update('outside').digest('hex');
    const other = { sha256: sha, size: 7 };
    const read: string[] = [];
    const reader = {
      sha256: async (f: string) => (read.push(f), createHash('sha256').update(await fs.readFile(f)).digest('hex')),
      readLink: async (f: string) => (read.push(f), fs.readlink(f).catch(() => undefined)),
      stat: (f: string) => fs.lstat(f).then((s) => ({ size: s.size, mtimeMs: s.mtimeMs, link: s.isSymbolicLink() }), () => undefined),
      realpath: (f: string) => fs.realpath(f).catch(() => undefined),
    };
    const files = [
      rec,
      { path: `../${path.basename(outside)}/secret`, ...other },
      { path: path.join(outside, 'secret'), ...other },
      { path: 'via/secret', ...other },
      { path: 'lib/linked.so', ...other },
    ];
    expect(await verifyPrefix(prefix, { files }, reader, { rehash: true })).toEqual([
      { path: `../${path.basename(outside)}/secret`, problem: 'outside' },
      { path: path.join(outside, 'secret'), problem: 'outside' },
      { path: 'lib/linked.so', problem: 'changed' },
      { path: 'via/secret', problem: 'outside' },
    ]);
    expect(read).toEqual([path.join(prefix, 'lib', 'libze_loader.so.1')]);
  });

  it('a receipt larger than any xpu-setup writes is not read; one cut short or not a receipt is damaged, not foreign', async () => {
    const { readReceipt, MAX_RECEIPT_BYTES } = await import('../../src/prefix/receipt.js');
    const { readPrefixState, refuseForeignPrefix } = await import('../../src/prefix/prefix-state.js');
    const prefix = await temp();
    const receipt = path.join(prefix, 'xpu-setup.receipt.json');
    await fs.writeFile(receipt, '');
    await fs.truncate(receipt, MAX_RECEIPT_BYTES + 1);
    await expect(readReceipt(prefix)).rejects.toMatchObject({ code: 'INSTALL', message: expect.stringMatching(/is damaged: it is \d+ bytes, more than any xpu-setup writes/), details: { receiptDamaged: true } });
    await fs.writeFile(receipt, '{"schema":1,"tool":{"name":"xpu-setup","version":"1"},"files":[{"pa');
    await expect(readReceipt(prefix)).rejects.toMatchObject({ message: expect.stringMatching(/is damaged: it is not JSON/) });
    await fs.mkdir(path.join(prefix, 'lib'));
    await fs.writeFile(path.join(prefix, 'lib', 'libze_loader.so.1'), 'x');
    // Without xpu-setup's own env files it may be anyone's directory: refused, naming the damage.
    // Reading the prefix never throws for a damaged receipt: the run's state says so, and the checks decide.
    expect((await readPrefixState(prefix)).unreadable).toMatchObject({ details: { receiptDamaged: true } });
    await expect(refuseForeignPrefix(await readPrefixState(prefix))).rejects.toMatchObject({ message: expect.stringMatching(/is damaged/) });
    await fs.writeFile(path.join(prefix, 'env.sh'), `# generated by xpu-setup; regenerate with: xpu-setup env --prefix '${prefix}' --shell sh\n`);
    expect(await refuseForeignPrefix(await readPrefixState(prefix))).toMatch(/is damaged: it is not JSON .*carries xpu-setup's own env files, so this run reinstalls it whole/);
  });
});

describe('a symlinked prefix', () => {
  it('is refused, naming the directory it points to, and left a link', async () => {
    const { readPrefixState, refuseForeignPrefix } = await import('../../src/prefix/prefix-state.js');
    const target = await temp();
    const link = path.join(await temp(), 'prefix');
    await fs.symlink(target, link);
    const real = await fs.realpath(target);
    await expect(refuseForeignPrefix(await readPrefixState(link))).rejects.toMatchObject({ code: 'INSTALL', message: `${link} is a symbolic link to ${real}`, hints: expect.arrayContaining([`name the directory it points to: --prefix ${real}`]) });
    expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
  });
});

describe('the prefix check of a re-run', () => {
  it('sees a file whose size changed without reading it, and one edited in place (same size, new mtime) by its hash', async () => {
    const { prefix, file, rec } = await prefixWith('loader bytes v1\n');
    expect(await verifyPrefix(prefix, { files: [rec] })).toEqual([]);
    await fs.writeFile(file, 'loader bytes v1 and more\n');
    expect(await verifyPrefix(prefix, { files: [rec] })).toEqual([{ path: rec.path, problem: 'changed' }]);
    await fs.writeFile(file, 'loader bytes v2\n');
    await fs.utimes(file, new Date(), new Date(rec.mtimeMs + 5000));
    expect(await verifyPrefix(prefix, { files: [rec] })).toEqual([{ path: rec.path, problem: 'changed' }]);
  });

  it('takes a touched file with the same bytes as unchanged', async () => {
    const { prefix, file, rec } = await prefixWith('loader bytes\n');
    await fs.utimes(file, new Date(), new Date(rec.mtimeMs + 5000));
    expect(await verifyPrefix(prefix, { files: [rec] })).toEqual([]);
  });

  it('trusts size and mtime unless asked to re-hash: --verify finds an edit that kept both', async () => {
    const { prefix, file, rec } = await prefixWith('loader bytes v1\n');
    await fs.writeFile(file, 'loader bytes v2\n');
    await fs.utimes(file, new Date(), new Date(rec.mtimeMs));
    expect(await verifyPrefix(prefix, { files: [rec] })).toEqual([]);
    expect(await verifyPrefix(prefix, { files: [rec] }, undefined, { rehash: true })).toEqual([{ path: rec.path, problem: 'changed' }]);
  });

  it('hashes files of receipts written before mtimes were recorded', async () => {
    const { prefix, file, rec } = await prefixWith('loader bytes v1\n');
    const { mtimeMs: _m, ...old } = rec;
    await fs.writeFile(file, 'loader bytes v2\n');
    await fs.utimes(file, new Date(), new Date(rec.mtimeMs));
    expect(await verifyPrefix(prefix, { files: [old] })).toEqual([{ path: rec.path, problem: 'changed' }]);
  });

  it('reports a missing file', async () => {
    const { prefix, file, rec } = await prefixWith('x\n');
    await fs.rm(file);
    expect(await verifyPrefix(prefix, { files: [rec] })).toEqual([{ path: rec.path, problem: 'missing' }]);
  });
});

describe('the fingerprint of what a probe depends on', () => {
  const receipt = { planKey: 'k1', extraEnv: undefined };

  it('changes when a driver library on the search path is installed, upgraded or removed, and not otherwise', async () => {
    const dir = await temp();
    const deps = { platform: 'linux' as const, env: { LD_LIBRARY_PATH: dir } };
    const none = await proofInputs('/p', receipt, deps);
    expect((await proofInputs('/p', receipt, deps)).key).toBe(none.key);
    const drv = path.join(dir, 'libze_intel_gpu.so.1');
    await fs.writeFile(drv, 'driver 1.0');
    const installed = await proofInputs('/p', receipt, deps);
    expect(installed.key).not.toBe(none.key);
    expect(installed.parts.drivers).toEqual(expect.arrayContaining([[drv, 10, expect.any(Number)]]));
    await fs.writeFile(drv, 'driver 1.1 (upgraded)');
    const upgraded = await proofInputs('/p', receipt, deps);
    expect(upgraded.key).not.toBe(installed.key);
    await fs.rm(drv);
    expect((await proofInputs('/p', receipt, deps)).key).toBe(none.key);
  });

  it('follows ZE_ENABLE_ALT_DRIVERS (from the environment or the receipt) instead of the default driver names', () => {
    expect(driverCandidates({ platform: 'linux', env: { ZE_ENABLE_ALT_DRIVERS: '/opt/ref/libref.so,libother.so.1' } })).toEqual(
      expect.arrayContaining(['/opt/ref/libref.so', '/usr/lib/x86_64-linux-gnu/libother.so.1']),
    );
    expect(driverCandidates({ platform: 'linux', env: {} }, '/prefix/lib/libxpu_refdriver.so')).toEqual(['/prefix/lib/libxpu_refdriver.so']);
    expect(driverCandidates({ platform: 'linux', env: {} })).toEqual(expect.arrayContaining(['/usr/lib/x86_64-linux-gnu/libze_intel_gpu.so.1']));
  });

  it('changes with the variables the loader, UR and OpenCL read, and with the plan; not with unrelated ones', async () => {
    const base = await proofInputs('/p', receipt, { platform: 'linux', env: { HOME: '/h' } });
    expect((await proofInputs('/p', receipt, { platform: 'linux', env: { HOME: '/elsewhere' } })).key).toBe(base.key);
    expect((await proofInputs('/p', receipt, { platform: 'linux', env: { HOME: '/h', ZE_AFFINITY_MASK: '0' } })).key).not.toBe(base.key);
    expect((await proofInputs('/p', receipt, { platform: 'linux', env: { HOME: '/h', ONEAPI_DEVICE_SELECTOR: 'level_zero:0' } })).key).not.toBe(base.key);
    expect((await proofInputs('/p', { planKey: 'k2' }, { platform: 'linux', env: { HOME: '/h' } })).key).not.toBe(base.key);
    const addon = path.join(await temp(), 'a.so');
    await fs.writeFile(addon, 'addon');
    const built = await proofInputs('/p', receipt, { platform: 'linux', env: { HOME: '/h' } }, { addon });
    expect(built.key).not.toBe(base.key);
    expect(built.parts.addon).toEqual([addon, 5, expect.any(Number)]);
  });

  it('says what it read, absent files and the directories it listed too, as a quick answer looks at them again', async () => {
    const dir = await temp();
    const drv = path.join(dir, 'libze_intel_gpu.so.1');
    await fs.writeFile(drv, 'driver 1.0');
    const { looked } = await proofInputs('/p', receipt, { platform: 'linux', env: { LD_LIBRARY_PATH: dir, OCL_ICD_VENDORS: path.join(dir, 'vendors') } }, { addon: path.join(dir, 'none.so') });
    expect(looked).toEqual(
      expect.arrayContaining([
        { k: 'sized', p: drv, v: [10, expect.any(Number)] },
        { k: 'sized', p: path.join(dir, 'none.so'), v: null },
        { k: 'sized', p: '/etc/ld.so.cache', v: expect.anything() },
        { k: 'dir', p: path.join(dir, 'vendors'), v: null },
      ]),
    );
    // Every driver candidate the fingerprint marks is a look, found or not.
    expect(looked.filter((l) => l.k === 'sized' && l.p.endsWith('libze_intel_gpu.so.1')).length).toBeGreaterThan(1);
  });
});

describe('glibc without starting a process', () => {
  it('finds libc.so.6 in /proc/self/maps and reads the version from its banner', () => {
    const maps = '7f2f11537000-7f2f1155d000 r--p 00000000 fe:00 339380                     /usr/lib/x86_64-linux-gnu/libc.so.6\n';
    expect(libcPathFromMaps(maps)).toBe('/usr/lib/x86_64-linux-gnu/libc.so.6');
    expect(libcPathFromMaps('7f00-7f01 r--p 0 0:0 0 /usr/lib/libmusl.so\n')).toBeUndefined();
    const bytes = Buffer.concat([Buffer.from([0, 1, 2, 0xff]), Buffer.from('GNU C Library (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36.\n'), Buffer.alloc(8)]);
    expect(parseLibcBanner(bytes)).toBe('2.36');
    expect(parseLibcBanner(Buffer.from('no banner here'))).toBeUndefined();
  });
});

describe('reusing a recent plan', () => {
  it('gives back the plan stored for the same request while it is young, and nothing after', async () => {
    const cache = await temp();
    const plan = { schema: 1, planKey: 'pk', components: [] } as unknown as InstallPlan;
    await rememberPlan(cache, 'a'.repeat(64), plan, 1_000_000);
    // Marked with when it was made, so a failure it leads to can say the plan was reused.
    expect(await recentPlan(cache, 'a'.repeat(64), 1_000_000 + 60_000)).toEqual({ ...plan, reusedFrom: new Date(1_000_000).toISOString() });
    expect(await recentPlan(cache, 'a'.repeat(64), 1_000_000 + 11 * 60_000)).toBeUndefined();
    expect(await recentPlan(cache, 'b'.repeat(64), 1_000_000)).toBeUndefined();
  });
});
