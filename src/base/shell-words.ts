// One word of a command line as a shell reads it back: quoting for POSIX sh and for PowerShell.

/** A POSIX shell word: unquoted when that is safe, else in single quotes (`'` as `'\''`). */
export function shq(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A PowerShell word: single quotes double inside. */
export function psq(s: string): string {
  return /^[A-Za-z0-9_:.\\/-]+$/.test(s) ? s : `'${s.replace(/'/g, "''")}'`;
}
