// Check: the prefix's receipt matches the files on disk (changed and missing files are named).
import * as path from 'node:path';
import type { ReceiptFile } from '../../install/receipt.js';
import { RECEIPT_NAME } from '../../install/receipt.js';
import type { Check, DoctorContext } from '../types.js';

export interface FileObservation {
  exists: boolean;
  sha256?: string;
  link?: string;
}

export interface ReceiptDiff {
  checked: number;
  changed: string[];
  missing: string[];
}

/** Pure: what differs between the receipt's file list and what is on disk. */
export function diffReceiptFiles(files: ReceiptFile[], observed: Map<string, FileObservation>): ReceiptDiff {
  const diff: ReceiptDiff = { checked: files.length, changed: [], missing: [] };
  for (const f of files) {
    const o = observed.get(f.path);
    if (!o || !o.exists) diff.missing.push(f.path);
    else if (f.link !== undefined ? o.link !== f.link : o.sha256 !== f.sha256) diff.changed.push(f.path);
  }
  return diff;
}

async function observe(ctx: DoctorContext, prefix: string, f: ReceiptFile): Promise<FileObservation> {
  const p = path.join(prefix, ...f.path.split('/'));
  if (f.link !== undefined) {
    const link = await ctx.deps.readLink(p);
    return link === undefined ? { exists: false } : { exists: true, link };
  }
  const sha256 = await ctx.io.sha256(p);
  return sha256 === undefined ? { exists: false } : { exists: true, sha256 };
}

function listSome(paths: string[], max = 8): string {
  return paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`;
}

export const prefixCheck: Check = {
  id: 'prefix',
  title: 'Prefix receipt',
  group: 'toolchain',
  timeoutMs: 60_000,
  async run(ctx) {
    const { receipt, error } = await ctx.facts.receipt();
    const file = path.join(ctx.prefix, RECEIPT_NAME);
    if (error) {
      return { status: 'fail', message: `${file} cannot be read: ${error}`, fix: 'run `xpu-setup` again to reinstall the prefix' };
    }
    if (!receipt) {
      if (!ctx.prefixExplicit) return { status: 'skip', message: `nothing installed in the default prefix ${ctx.prefix}` };
      return {
        status: 'fail',
        message: `${ctx.prefix} has no ${RECEIPT_NAME}: not an xpu-setup prefix, or the install did not finish`,
        fix: `run \`xpu-setup --prefix ${ctx.prefix}\``,
      };
    }
    const observed = new Map<string, FileObservation>();
    await Promise.all(receipt.files.map(async (f) => observed.set(f.path, await observe(ctx, ctx.prefix, f))));
    const diff = diffReceiptFiles(receipt.files, observed);
    const components = receipt.components.map((c) => `${c.name} ${c.version} (${c.source})`);
    const details: Record<string, unknown> = { receipt: file, components, ...diff };
    const problems: string[] = [];
    if (diff.changed.length) problems.push(`changed: ${listSome(diff.changed)}`);
    if (diff.missing.length) problems.push(`missing: ${listSome(diff.missing)}`);
    if (problems.length) {
      return {
        status: 'fail',
        message: `${diff.changed.length + diff.missing.length} of ${diff.checked} files differ from the receipt; ${problems.join('; ')}`,
        fix: `run \`xpu-setup --prefix ${ctx.prefix}\` to restore them`,
        details,
      };
    }
    if (path.resolve(receipt.prefix) !== path.resolve(ctx.prefix)) {
      return {
        status: 'warn',
        message: `files match, but the prefix was installed at ${receipt.prefix} and moved: its env files still point there`,
        fix: `run \`xpu-setup --prefix ${ctx.prefix}\` to rewrite them`,
        details,
      };
    }
    return { status: 'ok', message: `${diff.checked} files match the receipt (${components.join(', ')})`, details };
  },
};
