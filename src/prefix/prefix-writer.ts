// The one writer of a prefix's own files: env files, the receipt, and the record of build outputs (addon, reference driver).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { sha256File } from '../cache/store.js';
import { XpuError } from '../base/errors.js';
import { isInside } from '../platform/index.js';
import { receiptEnvVars, renderEnv } from '../shells/env.js';
import { ENV_FILES, SHELLS } from '../shells/index.js';
import { RECEIPT_NAME, type Receipt, type ReceiptFile } from '../records/receipt.js';
import { byPath } from './receipt.js';

/** What a build stage produced inside the prefix: the library and its build stamp. */
export interface BuildOutput {
  /** Absolute path of the built library (inside the prefix). */
  output: string;
  /** The build stamp beside it, when the build layer keeps one. */
  stamp?: string;
}

export type BuildRole = 'addon' | 'refdriver';

/** Writes `text` to dir/name through a temp file and a rename, so no reader ever sees half of it. */
async function replaceFile(dir: string, name: string, text: string): Promise<void> {
  const file = path.join(dir, name);
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, text, { flag: 'wx', mode: 0o644 });
  await fs.rename(tmp, file);
}

/** Writes the env files of `receipt` into dir (a staging tree or the live prefix). */
export async function writeEnvFiles(dir: string, receipt: Receipt): Promise<void> {
  const vars = receiptEnvVars(receipt);
  for (const shell of SHELLS) await replaceFile(dir, ENV_FILES[shell], renderEnv(vars, shell, receipt.platform));
}

export async function writeReceipt(dir: string, receipt: Receipt): Promise<void> {
  await replaceFile(dir, RECEIPT_NAME, JSON.stringify(receipt, null, 2) + '\n');
}

/**
 * Writes the receipt and the env files that follow from it into dir: at the swap (the staging tree) and at a run's
 * end. Then the `obsolete` files leave it (prefix-relative, as a draft of build outputs names them): the receipt
 * written no longer lists them, and the one before still found them there.
 */
export async function writePrefixFiles(dir: string, receipt: Receipt, obsolete: readonly string[] = []): Promise<void> {
  await writeEnvFiles(dir, receipt);
  await writeReceipt(dir, receipt);
  const listed = new Set(receipt.files.map((f) => f.path));
  for (const rel of obsolete) {
    // The receipt is a file on disk: a path in it that leaves the prefix is never acted on.
    if (listed.has(rel) || rel.split('/').some((x) => x === '..' || x === '') || path.isAbsolute(rel)) continue;
    await fs.rm(path.join(dir, ...rel.split('/')), { force: true });
  }
}

/** A receipt drafted in memory, and the files recorded before it that leave the prefix once it is written. */
export interface Draft {
  receipt: Receipt;
  obsolete: string[];
}

/** A copy of `current` after `mutate`, written nowhere: a run drafts the receipt it writes once, at its end. */
export async function draftReceipt(current: Receipt, mutate: (r: Receipt) => void | Promise<void>): Promise<Receipt> {
  const receipt = structuredClone(current);
  await mutate(receipt);
  if (receipt.extraEnv && Object.keys(receipt.extraEnv).length === 0) delete receipt.extraEnv;
  return receipt;
}

/**
 * Rewrites the receipt and the env files of an installed prefix after `mutate` changed a copy of `current`, the
 * receipt as the run holds it (it holds the prefix lock, so the file says the same); returns the receipt written.
 */
export async function updateReceipt(prefix: string, current: Receipt, mutate: (r: Receipt) => void | Promise<void>): Promise<Receipt> {
  const receipt = await draftReceipt(current, mutate);
  await writePrefixFiles(prefix, receipt);
  return receipt;
}

/** `abs` as a prefix-relative POSIX path, or an error when it is not inside the prefix. */
function inside(prefix: string, abs: string): string {
  if (!isInside(prefix, abs)) {
    throw new XpuError('INTERNAL', `build output ${abs} is not inside the prefix ${prefix}`, { details: { prefix, path: abs } });
  }
  return path.relative(prefix, abs).split(path.sep).join('/');
}

/**
 * Records this run's build outputs in a draft of the receipt (so the no-op check and doctor verify them like any
 * installed file); the outputs of a role this run did not build (`drop`: a run without --refdriver drops the driver
 * library an earlier run built), and those a rebuild under a new name leaves behind, become the draft's obsolete
 * files, removed when the receipt is written (writePrefixFiles). Only files the receipt recorded as build outputs.
 */
export async function draftBuilds(prefix: string, current: Draft, built: Partial<Record<BuildRole, BuildOutput>>, drop: BuildRole[] = []): Promise<Draft> {
  const obsolete = [...current.obsolete];
  const receipt = await draftReceipt(current.receipt, async (r) => {
    const builds = { ...(r.builds ?? {}) };
    const files = new Map(r.files.map((f) => [f.path, f]));
    const forget = (role: BuildRole): string[] => {
      const was = builds[role] ?? [];
      for (const rel of was) files.delete(rel);
      delete builds[role];
      return was;
    };
    for (const role of drop) obsolete.push(...forget(role));
    for (const [role, out] of Object.entries(built) as [BuildRole, BuildOutput | undefined][]) {
      if (!out) continue;
      const previous = forget(role);
      const recorded: string[] = [];
      for (const abs of [out.output, out.stamp].filter((x): x is string => !!x)) {
        const rel = inside(prefix, abs);
        const st = await fs.stat(abs);
        const rec: ReceiptFile = { path: rel, sha256: await sha256File(abs), size: st.size, mtimeMs: st.mtimeMs };
        files.set(rel, rec);
        recorded.push(rel);
      }
      // A rebuild under a new name leaves the old library behind unless it is removed.
      obsolete.push(...previous.filter((rel) => !recorded.includes(rel)));
      builds[role] = recorded;
    }
    r.builds = Object.keys(builds).length ? builds : undefined;
    r.files = [...files.values()].sort(byPath);
  });
  return { receipt, obsolete };
}

/** draftBuilds, written into the prefix. */
export async function recordBuilds(prefix: string, current: Receipt, built: Partial<Record<BuildRole, BuildOutput>>, drop: BuildRole[] = []): Promise<Receipt> {
  const draft = await draftBuilds(prefix, { receipt: current, obsolete: [] }, built, drop);
  await writePrefixFiles(prefix, draft.receipt, draft.obsolete);
  return draft.receipt;
}
