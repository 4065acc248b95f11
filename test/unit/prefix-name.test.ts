// docs/design-and-safety.md, "Safety": a prefix name the file system would refuse is said up front, as too long, with the limit.
import { describe, expect, it } from 'vitest';
import { checkPrefixName } from '../../src/prefix/prefix-state.js';
import { XpuError } from '../../src/base/errors.js';

const errorOf = (f: () => void): XpuError => {
  try {
    f();
  } catch (e) {
    return e as XpuError;
  }
  throw new Error('no error');
};

describe('checkPrefixName', () => {
  it('accepts ordinary prefixes, and the longest own name that leaves room for the staging directory beside it', () => {
    expect(() => checkPrefixName('/home/u/.local/share/xpu-setup', 'linux')).not.toThrow();
    expect(() => checkPrefixName(`/tmp/${'a'.repeat(229)}`, 'linux')).not.toThrow();
  });

  it('a component over 255 bytes: NAME_TOO_LONG with the limit (300 characters was an internal ENAMETOOLONG)', () => {
    const e = errorOf(() => checkPrefixName(`/tmp/${'a'.repeat(300)}`, 'linux'));
    expect(e.code).toBe('NAME_TOO_LONG');
    expect(e.message).toMatch(/too long for this file system: 300 bytes, the limit is 255$/);
    expect(e.details).toMatchObject({ limit: 255, length: 300, unit: 'bytes' });
  });

  it('an own name that fits but leaves no room for the staging name (250 characters was a writable/free-space hint)', () => {
    const e = errorOf(() => checkPrefixName(`/tmp/${'b'.repeat(250)}`, 'linux'));
    expect(e.code).toBe('NAME_TOO_LONG');
    expect(e.message).toMatch(/staging directory beside it.*250 bytes, the limit is 229$/);
  });

  it('counts bytes on Linux (a 100-character name of 3-byte characters is 300 bytes) and UTF-16 units on Windows', () => {
    expect(errorOf(() => checkPrefixName(`/tmp/${'€'.repeat(100)}`, 'linux')).details).toMatchObject({ length: 300 });
    expect(() => checkPrefixName(`C:\\Users\\u\\${'€'.repeat(100)}`, 'win32')).not.toThrow();
  });

  it('a line break in the prefix is refused up front, the character named; `"` and other characters are taken', () => {
    const e = errorOf(() => checkPrefixName('/tmp/a\nb', 'linux'));
    expect(e.code).toBe('USAGE');
    expect(e.message).toBe('the prefix "/tmp/a\\nb" holds a newline (U+000A), which the files written for it cannot carry: pkg-config files, GitHub\'s GITHUB_PATH and env.bat are read line by line');
    expect(e.hints.join(' ')).toMatch(/without line breaks; nothing was changed/);
    expect(errorOf(() => checkPrefixName('C:\\x\ry', 'win32')).message).toMatch(/a carriage return \(U\+000D\)/);
    expect(() => checkPrefixName('/tmp/a"b $c \'d\' %e% !f!', 'linux')).not.toThrow();
  });

  it('a whole path that leaves no room for the files under it', () => {
    const deep = '/' + Array.from({ length: 20 }, () => 'd'.repeat(200)).join('/');
    const e = errorOf(() => checkPrefixName(deep, 'linux'));
    expect(e.code).toBe('NAME_TOO_LONG');
    expect(e.details).toMatchObject({ limit: 3840 });
  });
});
