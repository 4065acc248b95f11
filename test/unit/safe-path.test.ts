import { describe, expect, it } from 'vitest';
import { safeLinkTarget, safePath } from '../../src/formats/safe-path.js';

describe('safePath', () => {
  it('normalises ordinary members', () => {
    expect(safePath('./usr/include/level_zero/ze_api.h', 'a.deb')).toBe('usr/include/level_zero/ze_api.h');
    expect(safePath('Library\\bin\\ze_loader.dll', 'a.zip')).toBe('Library/bin/ze_loader.dll');
    expect(safePath('lib//x/./y', 'a')).toBe('lib/x/y');
  });

  it.each([
    ['/etc/passwd', 'absolute path'],
    ['../../evil', 'parent directory reference'],
    ['lib/../../evil', 'parent directory reference'],
    ['C:/Windows/evil.dll', 'drive letter'],
    ['c:evil', 'drive letter'],
    ['\\\\server\\share\\x', 'absolute path'],
    ['a\0b', 'NUL'],
    ['./', 'empty path'],
  ])('refuses %j (%s) and names the archive', (member, why) => {
    expect(() => safePath(member, 'pkg.tar.bz2')).toThrowError(new RegExp(`pkg\\.tar\\.bz2.*${why}`));
  });
});

describe('safeLinkTarget', () => {
  it('allows links that stay inside', () => {
    expect(safeLinkTarget('lib/libze_loader.so.1', 'libze_loader.so.1.8.0', 'a')).toBe('libze_loader.so.1.8.0');
    expect(safeLinkTarget('lib/x/y', '../z', 'a')).toBe('../z');
  });

  it('refuses absolute and escaping links', () => {
    expect(() => safeLinkTarget('lib/a', '/etc/passwd', 'a')).toThrow(/absolute link target/);
    expect(() => safeLinkTarget('lib/a', '../../etc/passwd', 'a')).toThrow(/outside the prefix/);
    expect(() => safeLinkTarget('a', '..', 'a')).toThrow(/outside the prefix/);
  });
});
