// Shared by the fault-matrix suites: a sentinel tree outside the staging tree, its snapshot, and the one-line-per-case table.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export interface FaultRow {
  /** What the case does, short. */
  case: string;
  exit: number;
  /** The JSON error code under --json, or '-' when the run succeeded. */
  code: string;
  ms: number;
  /** "unchanged", or what changed outside the staging tree. */
  outside: string;
}

/** Every entry under dir (not following links): type, mode and content hash or link target. */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const abs = path.join(d, e.name);
      const st = await fs.lstat(abs);
      if (e.isSymbolicLink()) out.set(r, `link ${await fs.readlink(abs)}`);
      else if (e.isDirectory()) {
        out.set(r, `dir ${(st.mode & 0o7777).toString(8)}`);
        await walk(abs, r);
      } else out.set(r, `file ${(st.mode & 0o7777).toString(8)} ${createHash('sha256').update(await fs.readFile(abs)).digest('hex')}`);
    }
  };
  await walk(dir, '');
  return out;
}

/** Fills dir with a few files, a subdirectory and a link: what an escaping member would overwrite or delete. */
export async function makeSentinel(dir: string): Promise<void> {
  await fs.mkdir(path.join(dir, 'sub'), { recursive: true });
  await fs.writeFile(path.join(dir, 'keep.txt'), 'sentinel: must survive every case\n');
  await fs.writeFile(path.join(dir, 'sub', 'victim.so'), 'sentinel library\n');
  await fs.symlink('keep.txt', path.join(dir, 'link-to-keep'));
}

/** "unchanged", or the first few differences between two snapshots. */
export function compareSnapshots(before: Map<string, string>, after: Map<string, string>): string {
  const diffs: string[] = [];
  for (const [k, v] of before) {
    if (!after.has(k)) diffs.push(`${k} removed`);
    else if (after.get(k) !== v) diffs.push(`${k} changed`);
  }
  for (const k of after.keys()) if (!before.has(k)) diffs.push(`${k} added`);
  return diffs.length ? `CHANGED: ${diffs.slice(0, 3).join(', ')}${diffs.length > 3 ? ` (+${diffs.length - 3})` : ''}` : 'unchanged';
}

/** The table as printed: a header, one line per case. */
export function formatFaultTable(title: string, rows: FaultRow[]): string {
  const header: FaultRow = { case: 'case', exit: NaN, code: 'error code', ms: NaN, outside: 'outside the staging tree' };
  const w = Math.max(...[header, ...rows].map((r) => r.case.length));
  const c = Math.max(...[header, ...rows].map((r) => r.code.length));
  const line = (r: FaultRow, exit: string, ms: string) =>
    `${r.case.padEnd(w)}  ${exit.padStart(4)}  ${r.code.padEnd(c)}  ${ms.padStart(7)}  ${r.outside}`;
  return [
    `== ${title} ==`,
    line(header, 'exit', 'time'),
    ...rows.map((r) => line(r, String(r.exit), `${(r.ms / 1000).toFixed(2)}s`)),
  ].join('\n');
}

/** Collects rows as cases finish and prints the table once, on stdout, when the suite ends. */
export class FaultTable {
  readonly rows: FaultRow[] = [];
  constructor(readonly title: string) {}
  add(row: FaultRow): FaultRow {
    this.rows.push(row);
    return row;
  }
  print(): void {
    process.stdout.write(formatFaultTable(this.title, this.rows) + '\n');
  }
}
