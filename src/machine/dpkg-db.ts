// dpkg's own database (/var/lib/dpkg/status and info/*.list), read as files: the answers of dpkg-query -W and -S.
import type { Deps } from '../base/deps.js';

export const DPKG_ADMIN_DIR = '/var/lib/dpkg';

export interface DpkgRecord {
  name: string;
  architecture?: string;
  version?: string;
  /** The Status field's three words: want, error flag, state ("install ok installed"). */
  want: string;
  state: string;
  /** The virtual packages it provides, as the Provides field lists them (`libigc1+llvm14`, `opencl-icd`). */
  provides?: string[];
}

/**
 * Pure: the package records of a dpkg status file, in file order. Only the fields dpkg-query's `-W` answer and
 * apt's Depends following need are picked out, by one regular expression over the whole text (the file runs to megabytes; splitting it
 * into lines costs several times more). A record starts at its Package field, which dpkg always writes first;
 * continuation lines start with a space and so never match.
 */
export function parseDpkgStatus(text: string): DpkgRecord[] {
  const out: DpkgRecord[] = [];
  let cur: Partial<DpkgRecord> = {};
  const flush = (): void => {
    if (cur.name && cur.want && cur.state) out.push(cur as DpkgRecord);
  };
  for (const m of text.matchAll(/^(Package|Architecture|Version|Status|Provides):[ \t]*([^\r\n]*)/gm)) {
    const value = m[2]!.trim();
    switch (m[1]) {
      case 'Package':
        flush();
        cur = { name: value };
        break;
      case 'Architecture':
        cur.architecture = value;
        break;
      case 'Version':
        cur.version = value;
        break;
      case 'Provides':
        cur.provides = value.split(',').map((p) => p.trim().split(/\s/)[0]!.replace(/:.*$/, '')).filter(Boolean);
        break;
      default: {
        const words = value.split(/\s+/);
        cur.want = words[0] ?? '';
        cur.state = words[2] ?? '';
      }
    }
  }
  flush();
  return out;
}

/** dpkg-query's `db:Status-Abbrev` first two letters say installed-and-wanted as "ii" or "hi" (on hold). */
export function isInstalled(r: Pick<DpkgRecord, 'want' | 'state'>): boolean {
  return (r.want === 'install' || r.want === 'hold') && r.state === 'installed';
}

/**
 * Pure: the installed packages among `names`, ordered as `dpkg-query -W names...` lists them (by name, then
 * architecture, byte order), with their versions.
 */
export function installedOf(records: DpkgRecord[], names: readonly string[]): { name: string; version: string; architecture?: string }[] {
  const wanted = new Set(names);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return records
    .filter((r) => wanted.has(r.name) && isInstalled(r) && r.version)
    .sort((a, b) => cmp(a.name, b.name) || cmp(a.architecture ?? '', b.architecture ?? ''))
    .map((r) => (r.architecture ? { name: r.name, version: r.version!, architecture: r.architecture } : { name: r.name, version: r.version! }));
}

/** Pure: whether a dpkg file list (one path per line) names `file` exactly, as `dpkg-query -S /path` matches. */
export function listHas(list: string, file: string): boolean {
  if (list.startsWith(`${file}\n`)) return true;
  return list.includes(`\n${file}\n`) || list.endsWith(`\n${file}`) || list === file;
}

/** The name a `<pkg>.list` or `<pkg>:<arch>.list` file belongs to. */
export function listPackage(fileName: string): string {
  return fileName.replace(/\.list$/, '').replace(/:.*$/, '');
}

/** The status file's records, read once per Deps (one doctor or probe run) however many checks ask. */
const statusMemo = new WeakMap<Deps, Promise<DpkgRecord[] | undefined>>();

export function readDpkgStatus(deps: Deps): Promise<DpkgRecord[] | undefined> {
  let p = statusMemo.get(deps);
  if (!p) {
    p = deps.readFile(`${DPKG_ADMIN_DIR}/status`).then((t) => (t === undefined ? undefined : parseDpkgStatus(t)));
    statusMemo.set(deps, p);
  }
  return p;
}

/** File lists already read in this run: a second lookup that misses does not read every list again. */
const listMemo = new WeakMap<Deps, Map<string, Promise<string | undefined>>>();

/**
 * The installed package whose file list names `file`: first among `likely` (the packages that usually own it), then
 * every list, so the answer is the one `dpkg-query -S` gives without paying for a full scan in the common case.
 * undefined when no list names it; undefined as well when the database cannot be read (the caller then asks dpkg).
 */
export async function dpkgOwnerFromLists(
  deps: Deps,
  file: string,
  likely: readonly string[],
): Promise<{ name: string } | { none: true } | undefined> {
  const info = `${DPKG_ADMIN_DIR}/info`;
  const all = await deps.readDir(info);
  if (!all) return undefined;
  const lists = all.filter((f) => f.endsWith('.list')).sort();
  const first = new Set(likely);
  let memo = listMemo.get(deps);
  if (!memo) listMemo.set(deps, (memo = new Map()));
  const has = async (f: string): Promise<boolean> => {
    let text = memo.get(f);
    if (!text) memo.set(f, (text = deps.readFile(`${info}/${f}`)));
    const t = await text;
    return t !== undefined && listHas(t, file);
  };
  for (const f of lists.filter((x) => first.has(listPackage(x)))) if (await has(f)) return { name: listPackage(f) };
  // The rest in parallel slices; the first match in name order wins, as in dpkg's own listing.
  const rest = lists.filter((x) => !first.has(listPackage(x)));
  for (let i = 0; i < rest.length; i += 64) {
    const slice = rest.slice(i, i + 64);
    const hits = await Promise.all(slice.map(has));
    const at = hits.indexOf(true);
    if (at >= 0) return { name: listPackage(slice[at]!) };
  }
  return { none: true };
}
