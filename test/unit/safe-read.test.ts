// The one reader of files a package or the machine names, the JSON bounds, the manifest.yml comment rule and the control-character rule.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeControls, withoutControls } from '../../src/base/control-chars.js';
import { ICD_FILE, LIBRARY_FILE, readSafely, SYSFS_ATTRIBUTE } from '../../src/base/safe-read.js';
import { parsePinsFile, withoutComment } from '../../src/kinds/github.js';
import { DEFAULT_INDEX_LIMITS, parseBoundedJson } from '../../src/net/config.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-safe-read-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('readSafely', () => {
  it('reads a regular file, through a link when the kind follows links', async () => {
    await fs.writeFile(path.join(dir, 'a.icd'), '/opt/lib/libx.so\n');
    await fs.symlink('a.icd', path.join(dir, 'b.icd'));
    expect(await readSafely(path.join(dir, 'b.icd'), ICD_FILE)).toEqual({ bytes: Buffer.from('/opt/lib/libx.so\n') });
    expect(await readSafely(path.join(dir, 'b.icd'), SYSFS_ATTRIBUTE)).toEqual({ refused: expect.stringMatching(/is a symbolic link, not a sysfs attribute/) });
  });

  it('refuses a FIFO at once, without waiting for a writer', async () => {
    execFileSync('mkfifo', [path.join(dir, 'fifo.so')]);
    const t0 = Date.now();
    expect(await readSafely(path.join(dir, 'fifo.so'), LIBRARY_FILE)).toEqual({ refused: expect.stringMatching(/is a FIFO, not a shared library/) });
    await fs.symlink('fifo.so', path.join(dir, 'to-fifo.so'));
    expect(await readSafely(path.join(dir, 'to-fifo.so'), LIBRARY_FILE)).toEqual({ refused: expect.stringMatching(/is a FIFO/) });
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('refuses a character device reached through a link, and a file past the cap', async () => {
    await fs.symlink('/dev/zero', path.join(dir, 'zero.icd'));
    expect(await readSafely(path.join(dir, 'zero.icd'), ICD_FILE)).toEqual({ refused: expect.stringMatching(/is a character device/) });
    await fs.writeFile(path.join(dir, 'big.icd'), '');
    await fs.truncate(path.join(dir, 'big.icd'), ICD_FILE.max + 1);
    expect(await readSafely(path.join(dir, 'big.icd'), ICD_FILE)).toEqual({ refused: expect.stringMatching(/holds 65537 bytes, more than an OpenCL \.icd file may \(65536\)/) });
  });

  it('reads a file whose size says 0 (procfs) to its end', async () => {
    const r = await readSafely('/proc/self/status', { what: 'a proc file', max: 1 << 20 });
    expect('bytes' in r && r.bytes.toString()).toMatch(/^Name:/);
  });
});

describe('bounded JSON', () => {
  const limits = { ...DEFAULT_INDEX_LIMITS, nesting: 4, jsonBytes: 1000 };
  it('counts nesting outside strings only', () => {
    expect(parseBoundedJson(Buffer.from('[{"a":"[[[[[[[\\"]]"}]'), 'u', limits)).toEqual([{ a: '[[[[[[["]]' }]);
    expect(() => parseBoundedJson(Buffer.from('[[[[[1]]]]]'), 'http://h/doc', limits)).toThrow(/http:\/\/h\/doc nests arrays and objects more than 4/);
    expect(() => parseBoundedJson(Buffer.alloc(1001, 0x20), 'http://h/doc', limits)).toThrow(/XPU_SETUP_MAX_JSON_BYTES|more than 1000 bytes/);
  });
});

describe('manifest.yml comments', () => {
  it('strips a comment after white space, keeps a # inside a value', () => {
    expect(withoutComment('  revision: igc-1.0.1 # pinned')).toBe('  revision: igc-1.0.1');
    expect(withoutComment('  url: http://h/#frag')).toBe('  url: http://h/#frag');
    expect(withoutComment('# all comment')).toBe('# all comment');
  });

  it('takes time linear in the line: a line of 4 Mi spaces, or of 2 Mi "a#", in well under a second (/\\s+#.*$/ took minutes)', () => {
    for (const line of [`${' '.repeat(1 << 22)}x`, 'a#'.repeat(1 << 21), ` ${'\t'.repeat(1 << 22)}#`]) {
      const t0 = Date.now();
      withoutComment(line);
      expect(Date.now() - t0).toBeLessThan(500);
    }
    expect(() => parsePinsFile(`components:\n${' '.repeat(1 << 20)}x\n`, 'manifest.yml')).toThrow(/line 2 is not "key: value"/);
  });
});

describe('control characters in names an index gives', () => {
  it('are refused with the document named and the value escaped', () => {
    expect(withoutControls('intel-ocloc_1_amd64.deb', 'name', 'doc')).toBe('intel-ocloc_1_amd64.deb');
    expect(() => withoutControls('a\u001b[2Jb\r\n\u009bc', 'assets[0].name', 'http://h/releases')).toThrow('http://h/releases: assets[0].name holds a control character: "a\\x1b[2Jb\\x0d\\x0a\\x9bc"');
    expect(escapeControls('\u0000\u007f')).toBe('\\x00\\x7f');
  });
});
