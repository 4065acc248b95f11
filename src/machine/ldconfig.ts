// The dynamic linker's cache: read from /etc/ld.so.cache itself, or as `ldconfig -p` prints it when that fails.
import { readFile } from 'node:fs/promises';
import type { Deps } from '../base/deps.js';
import type { Finding } from '../base/finding.js';
import { parseLdCache, type LdconfigEntry } from './ld-cache.js';

export type { LdconfigEntry } from './ld-cache.js';

export const LD_SO_CACHE = '/etc/ld.so.cache';

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

/**
 * The cache's rows. The file answers without starting a process (ldconfig costs a fork and exec on every doctor
 * run); `ldconfig -p` is the fallback for a cache this reader does not know, and for callers that inject their own
 * bytes reader (tests) returning nothing.
 */
export async function readLdconfig(
  deps: Deps,
  opts: { readBytes?: (file: string) => Promise<Uint8Array | undefined> } = {},
): Promise<Finding<LdconfigEntry[]>> {
  const readBytes = opts.readBytes ?? ((f: string) => readFile(f).catch(() => undefined));
  const bytes = await readBytes(LD_SO_CACHE);
  const fromFile = bytes ? parseLdCache(bytes) : undefined;
  if (fromFile) return { found: fromFile, tried: [`${LD_SO_CACHE}: ${fromFile.length} cached libraries`] };
  // ldconfig lives in /sbin, which is not on every user's PATH.
  for (const exe of ['ldconfig', '/sbin/ldconfig', '/usr/sbin/ldconfig']) {
    const r = await deps.exec(exe, ['-p'], { timeoutMs: 10_000 });
    if (r.failedToStart) continue;
    const found = parseLdconfig(r.stdout);
    return { found, tried: [`${exe} -p: ${found.length} cached libraries`] };
  }
  return { found: [], tried: [`${LD_SO_CACHE}: ${bytes ? 'not a cache this reader knows' : 'not readable'}; ldconfig -p: ldconfig not found`] };
}
