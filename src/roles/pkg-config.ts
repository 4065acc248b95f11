// pkg-config files as roles write them: values escaped for pkg-config's shell-like split, shipped files re-rooted.

/**
 * A path as a .pc variable value. pkg-config splits Cflags/Libs like a shell after substituting variables, so spaces,
 * quotes and backslashes in the prefix must be backslash-escaped or the flags come out split or empty.
 */
export function pcEscape(value: string): string {
  return value.replace(/[\\ \t'"]/g, (c) => `\\${c}`);
}

/**
 * Re-roots a .pc file at `prefix` and makes includedir/libdir relative to it. With `version`, its Version says the
 * component's, the one the receipt records: a shipped file can lag its package (Debian's libze-dev 1.8.12 says 1.8.0).
 */
export function rerootPc(text: string, prefix: string, version?: string): string {
  const lines = text.split('\n').map((l) => {
    if (version && /^Version:/.test(l)) return `Version: ${version}`;
    if (/^prefix=/.test(l)) return `prefix=${pcEscape(prefix)}`;
    if (/^exec_prefix=/.test(l)) return 'exec_prefix=${prefix}';
    if (/^includedir=/.test(l)) return 'includedir=${prefix}/include';
    if (/^libdir=/.test(l)) return 'libdir=${prefix}/lib';
    return l;
  });
  return lines.join('\n');
}

/** The head every generated .pc file shares: the prefix and its include and library directories. */
export function pcHead(prefix: string): string {
  return `prefix=${pcEscape(prefix)}\nincludedir=\${prefix}/include\nlibdir=\${prefix}/lib\n\n`;
}
