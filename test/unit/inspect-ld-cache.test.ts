// ld.so.cache read as a file: every format glibc's ldconfig writes gives the rows `ldconfig -p` prints for it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ldFlagsText, parseLdCache } from '../../src/machine/ld-cache.js';
import { LD_SO_CACHE, parseLdconfig, readLdconfig } from '../../src/machine/ldconfig.js';
import { fakeDeps, ok } from '../fixtures/detect/fake-deps.js';

const LDCONFIG = '/sbin/ldconfig';
const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-ldcache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The oracle: what the real ldconfig prints for a cache file. */
const ldconfigP = (cache: string) => parseLdconfig(execFileSync(LDCONFIG, ['-p', '-C', cache], { encoding: 'utf8' }));

describe('parseLdCache against ldconfig -p', () => {
  it("reads this machine's /etc/ld.so.cache row for row", () => {
    const rows = parseLdCache(readFileSync(LD_SO_CACHE))!;
    expect(rows.length).toBeGreaterThan(100);
    expect(rows).toEqual(ldconfigP(LD_SO_CACHE));
    expect(rows.find((r) => r.name === 'libze_loader.so.1')).toMatchObject({ x64: true, flags: 'libc6,x86-64' });
  });

  // A directory with a glibc-hwcaps subdirectory, cached by the real ldconfig in each of its three formats.
  const lib = path.join(tmp, 'lib');
  mkdirSync(path.join(lib, 'glibc-hwcaps/x86-64-v2'), { recursive: true });
  copyFileSync('/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0', path.join(lib, 'libze_loader.so.1.8.0'));
  copyFileSync('/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0', path.join(lib, 'glibc-hwcaps/x86-64-v2/libze_loader.so.1.8.0'));
  writeFileSync(path.join(tmp, 'ld.so.conf'), `${lib}\n`);

  for (const format of ['new', 'compat', 'old'] as const) {
    it(`reads the ${format} format, glibc-hwcaps rows included`, () => {
      const cache = path.join(tmp, `ld.so.cache-${format}`);
      execFileSync(LDCONFIG, ['-X', '-c', format, '-C', cache, '-f', path.join(tmp, 'ld.so.conf')]);
      const rows = parseLdCache(readFileSync(cache))!;
      expect(rows).toEqual(ldconfigP(cache));
      const ours = rows.filter((r) => r.path.startsWith(lib));
      expect(ours.map((r) => r.path)).toEqual([path.join(lib, 'glibc-hwcaps/x86-64-v2/libze_loader.so.1.8.0'), path.join(lib, 'libze_loader.so.1')]);
      if (format === 'new') expect(ours[0]!.flags).toBe('libc6,x86-64, hwcap: "x86-64-v2"');
    });
  }

  it('refuses bytes that are not a cache, and a cache cut short', () => {
    expect(parseLdCache(Buffer.from('not a cache at all, but long enough to have a header.....'))).toBeUndefined();
    const whole = readFileSync(LD_SO_CACHE);
    expect(parseLdCache(whole.subarray(0, 200))).toBeUndefined();
  });

  it('names flags as ldconfig does', () => {
    expect(ldFlagsText(0x0303, 0n, undefined)).toBe('libc6,x86-64');
    expect(ldFlagsText(0x0003, 0n, undefined)).toBe('libc6');
    expect(ldFlagsText(0x0803, 0n, undefined)).toBe('libc6,x32');
    expect(ldFlagsText(0x0303, 0x4000000000000001n, 'x86-64-v3')).toBe('libc6,x86-64, hwcap: "x86-64-v3"');
    expect(ldFlagsText(0x0303, 0x10n, undefined)).toBe('libc6,x86-64, hwcap: 0x0000000000000010');
    expect(ldFlagsText(0x0303, 0n, undefined, 0x00020600)).toBe('libc6,x86-64, OS ABI: Linux 2.6.0');
  });
});

describe('readLdconfig', () => {
  it('answers from the file without starting ldconfig', async () => {
    const deps = fakeDeps();
    const r = await readLdconfig(deps);
    expect(deps.calls).toEqual([]);
    expect(r.tried).toEqual([`${LD_SO_CACHE}: ${r.found.length} cached libraries`]);
    expect(r.found).toEqual(ldconfigP(LD_SO_CACHE));
  });

  it('falls back to ldconfig -p when the file cannot be read', async () => {
    const text = readFileSync(path.join(__dirname, '../fixtures/detect/linux/ldconfig-p-debian12.txt'), 'utf8');
    const deps = fakeDeps({ exec: (file) => (file === '/sbin/ldconfig' ? ok(text) : undefined) });
    const r = await readLdconfig(deps, { readBytes: async () => undefined });
    expect(deps.calls).toEqual(['ldconfig -p', '/sbin/ldconfig -p']);
    expect(r.found).toEqual(parseLdconfig(text));
    expect(r.tried).toEqual([`/sbin/ldconfig -p: ${r.found.length} cached libraries`]);
  });
});
