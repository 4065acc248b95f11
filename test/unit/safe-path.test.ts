import { describe, expect, it } from 'vitest';
import { checkLinksInside, resolveInTree, safeLinkTarget, safePath, TargetNames, windowsNameProblem } from '../../src/formats/safe-path.js';

describe('safePath', () => {
  it('normalises ordinary members', () => {
    expect(safePath('./usr/include/level_zero/ze_api.h', 'a.deb')).toBe('usr/include/level_zero/ze_api.h');
    expect(safePath('Library\\bin\\ze_loader.dll', 'a.zip')).toBe('Library/bin/ze_loader.dll');
    expect(safePath('lib//x/./y', 'a')).toBe('lib/x/y');
    // A colon past the first character is no drive letter: Perl man pages in Debian packages carry "::".
    expect(safePath('usr/share/man/man3/Locale::gettext.3pm.gz', 'a.deb')).toBe('usr/share/man/man3/Locale::gettext.3pm.gz');
  });

  it('refuses with a typed error that carries the member, the archive and the reason', () => {
    let err: unknown;
    try {
      safePath('lib/../../evil', 'pkg.conda');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'UNSAFE_PATH',
      details: { member: 'lib/../../evil', archive: 'pkg.conda', why: 'parent directory reference' },
      hints: ['the package is malformed or hostile; nothing from it was installed'],
    });
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
    expect(() => safeLinkTarget('lib/a', 'C:/Windows/evil.dll', 'a')).toThrow(/absolute link target/);
    expect(() => safeLinkTarget('lib/a', 'lib\0x', 'a')).toThrow(/link target contains a NUL byte/);
  });

  it('refuses a link that resolves to the prefix root itself', () => {
    expect(() => safeLinkTarget('lib/a', '..', 'a')).toThrow(/"\.\." points outside the prefix/);
    expect(() => safeLinkTarget('a', '.', 'a')).toThrow(/outside the prefix/);
  });

  it('allows a link target with a colon past its first character', () => {
    expect(safeLinkTarget('share/man/man3/a.3pm', 'Locale::gettext.3pm', 'a')).toBe('Locale::gettext.3pm');
  });
});

describe('resolveInTree', () => {
  it('skips "." and empty segments of a link target, and reads a backslash as a separator', () => {
    expect(resolveInTree('lib/l', new Map([['lib/l', './/real']]))).toBe('lib/real');
    expect(resolveInTree('lib/l', new Map([['lib/l', 'sub\\real']]))).toBe('lib/sub/real');
    expect(resolveInTree('share/man/m', new Map([['share/man/m', 'Locale::gettext.3pm']]))).toBe('share/man/Locale::gettext.3pm');
  });

  it('leaves the tree at an absolute, drive-letter or NUL target', () => {
    for (const target of ['/etc/passwd', 'C:/Windows', 'c:evil', 'lib\0x']) {
      expect(resolveInTree('lib/a/x', new Map([['lib/a', target]]))).toBeUndefined();
    }
  });

  it('follows 40 links, as Linux does (MAXSYMLINKS), and calls the 41st a loop', () => {
    const chain = (n: number) => new Map(Array.from({ length: n }, (_, i) => [`l${i}`, i === n - 1 ? 'file' : `l${i + 1}`]));
    expect(resolveInTree('l0', chain(40))).toBe('file');
    expect(resolveInTree('l0', chain(41))).toBe('loop');
  });
});

describe('checkLinksInside', () => {
  const archiveOf = () => 'pkg.conda';

  it('accepts links that resolve inside', () => {
    expect(() => checkLinksInside(new Map([['lib/libze_loader.so', 'libze_loader.so.1'], ['lib/libze_loader.so.1', 'libze_loader.so.1.8.0']]), archiveOf)).not.toThrow();
  });

  it('refuses a link that a later link makes escape, and a loop, naming the archive', () => {
    // Alone, a/esc -> up/../x reads as a/x; once a/up -> .. exists, the kernel walks a/up/.. to the parent of the root.
    const escaping = new Map([['a/esc', 'up/../x'], ['a/up', '..']]);
    expect(() => checkLinksInside(escaping, archiveOf)).toThrow(/refusing archive member "a\/esc" in pkg\.conda: link target "up\/\.\.\/x" resolves outside the prefix through other links/);
    expect(() => checkLinksInside(new Map([['a', 'b'], ['b', 'a']]), archiveOf)).toThrow(/is a loop of links/);
  });
});

describe('names a Windows prefix cannot hold', () => {
  it('says why a segment cannot be a Windows name', () => {
    expect(windowsNameProblem('ze_api.h')).toBeUndefined();
    expect(windowsNameProblem('a<b')).toBe('"a<b" holds "<", which Windows does not allow in a name');
    expect(windowsNameProblem('Locale::gettext.3pm.gz')).toBe('"Locale::gettext.3pm.gz" holds ":", which Windows does not allow in a name (it names a stream)');
    expect(windowsNameProblem('tab\there')).toBe('"tab\there" holds "\\t", which Windows does not allow in a name');
    expect(windowsNameProblem('readme.')).toBe('"readme." ends in a dot or a space, which Windows drops');
    expect(windowsNameProblem('readme ')).toBe('"readme " ends in a dot or a space, which Windows drops');
    expect(windowsNameProblem('a.b c')).toBeUndefined();
  });

  it('knows the reserved device names, with any extension, and nothing that merely starts or ends like one', () => {
    for (const name of ['con', 'AUX.h', 'aux.txt', 'nul.tar.gz', 'com1', 'COM\u00b9', 'lpt9.log', 'CONIN$', 'conout$.x']) {
      expect(windowsNameProblem(name), name).toBe(`"${name}" is a device name Windows reserves`);
    }
    for (const name of ['console', 'xcon', 'coma', 'lpta', 'com10', 'auxiliary.h', 'prn_']) expect(windowsNameProblem(name), name).toBeUndefined();
  });

  it('refuses, for Windows only, a member whose name Windows cannot hold or that differs from another only in case', () => {
    const posix = new TargetNames('posix');
    posix.claim('include/CON.h', 'a.conda');
    posix.claim('include/ze_api.h', 'a.conda');
    posix.claim('include/ZE_API.H', 'a.conda');

    const win = new TargetNames('windows');
    win.claim('Library/include/level_zero/ze_api.h', 'a.conda');
    win.claim('Library/include/level_zero/ze_api.h', 'b.conda');
    win.claim('Library/include/level_zero/zes_api.h', 'a.conda');
    expect(() => win.claim('Library/include/aux.h', 'c.conda')).toThrow(
      expect.objectContaining({
        code: 'UNSAFE_PATH',
        details: expect.objectContaining({ member: 'Library/include/aux.h', archive: 'c.conda', why: '"aux.h" is a device name Windows reserves (installing for Windows)' }),
      }),
    );
    expect(() => win.claim('Library/include/Level_Zero/x.h', 'd.conda')).toThrow(
      expect.objectContaining({
        details: expect.objectContaining({ why: '"Library/include/Level_Zero" and "Library/include/level_zero" are one name on Windows, which ignores case' }),
      }),
    );
    expect(() => win.claim('Library/include/level_zero/ZE_API.H', 'd.conda')).toThrow(/ignores case/);
    expect(() => win.claim('Library/bin/a?.dll', 'd.conda')).toThrow(/holds "\?"/);
  });
});
