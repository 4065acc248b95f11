// What a downloaded candidate turned out to be, kept beside the download cache: a package that lacks the files its
// component requires, or whose libraries do not load on this host, is not planned again, and not downloaded again to
// learn it.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** One candidate turned away after its download. */
export interface Verdict {
  component: string;
  /** The candidate for people: `intel-compute-runtime 22.43.24595.41`. */
  candidate: string;
  /** The sha256 of each of its own archives (not its dependencies'): a resolution that has all of them is this candidate. */
  archives: string[];
  why: string;
  /** Set when the verdict holds only for this host (a library that does not load here): `linux-x64 glibc 2.36`. */
  host?: string;
}

/** The file in the cache directory. */
export const VERDICTS_FILE = 'verdicts.json';

export async function readVerdicts(cacheDir: string): Promise<Verdict[]> {
  const text = await fs.readFile(path.join(cacheDir, VERDICTS_FILE), 'utf8').catch(() => undefined);
  if (!text) return [];
  try {
    const doc = JSON.parse(text) as { verdicts?: Verdict[] };
    return Array.isArray(doc.verdicts) ? doc.verdicts.filter((v) => Array.isArray(v?.archives) && typeof v.why === 'string') : [];
  } catch {
    // A damaged file costs a download, never a run.
    return [];
  }
}

/** Adds `more` (replacing a verdict on the same archives and host), written to a temp file and renamed. */
export async function rememberVerdicts(cacheDir: string, more: readonly Verdict[]): Promise<void> {
  const same = (a: Verdict, b: Verdict): boolean => a.host === b.host && a.archives.join() === b.archives.join();
  const kept = (await readVerdicts(cacheDir)).filter((v) => !more.some((m) => same(m, v)));
  await fs.mkdir(cacheDir, { recursive: true });
  const tmp = path.join(cacheDir, `.${VERDICTS_FILE}.${randomBytes(6).toString('hex')}`);
  await fs.writeFile(tmp, JSON.stringify({ verdicts: [...kept, ...more] }, null, 1) + '\n');
  await fs.rename(tmp, path.join(cacheDir, VERDICTS_FILE));
}

/** The host a load verdict holds for: its platform and glibc. */
export function verdictHost(host: { platform: string; glibc?: string }): string {
  return `${host.platform} glibc ${host.glibc ?? 'unknown'}`;
}

/** The verdict that turns away a resolution with these archives on `host`, if any. */
export function verdictOn(verdicts: readonly Verdict[], archives: readonly string[], host: string): Verdict | undefined {
  return verdicts.find((v) => v.archives.length > 0 && (!v.host || v.host === host) && v.archives.every((a) => archives.includes(a)));
}
