// The dynamic linker's cache as `ldconfig -p` prints it, parsed into entries.
import type { Deps } from '../deps.js';
import type { Finding } from '../finding.js';

export interface LdconfigEntry {
  name: string;
  /** The flags in parentheses, e.g. "libc6,x86-64". */
  flags: string;
  /** True for 64-bit x86 entries (the only ones an x64 process can load). */
  x64: boolean;
  path: string;
}

/** Lines look like "\tlibze_loader.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libze_loader.so.1". */
export function parseLdconfig(text: string): LdconfigEntry[] {
  const out: LdconfigEntry[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s+(\S+)\s+\(([^)]*)\)\s+=>\s+(\S.*?)\s*$/.exec(line);
    if (!m) continue;
    out.push({ name: m[1]!, flags: m[2]!, x64: /x86-64/.test(m[2]!), path: m[3]! });
  }
  return out;
}

export async function readLdconfig(deps: Deps): Promise<Finding<LdconfigEntry[]>> {
  // ldconfig lives in /sbin, which is not on every user's PATH.
  for (const exe of ['ldconfig', '/sbin/ldconfig', '/usr/sbin/ldconfig']) {
    const r = await deps.exec(exe, ['-p'], { timeoutMs: 10_000 });
    if (r.failedToStart) continue;
    const found = parseLdconfig(r.stdout);
    return { found, tried: [`${exe} -p: ${found.length} cached libraries`] };
  }
  return { found: [], tried: ['ldconfig -p: ldconfig not found'] };
}
