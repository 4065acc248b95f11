// The prefix receipt: what was installed, from where, with which hashes. Written last, read by setup and doctor.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../errors.js';
import type { TargetPlatform } from '../host/types.js';
import type { LockedPlatform } from '../plan/lockfile.js';
import type { BelowFloor } from '../plan/types.js';
import type { SetupRequest } from '../plan/types.js';

export const RECEIPT_NAME = 'xpu-setup.receipt.json';
export const RECEIPT_SCHEMA = 1;

export interface ReceiptFile {
  /** Path inside the prefix, always with forward slashes. */
  path: string;
  sha256: string;
  size: number;
  /**
   * Modification time as installed. A file whose size and mtime still match is taken as unchanged without being
   * read again (`--verify` reads every byte); absent in receipts older than this field, which are hashed.
   */
  mtimeMs?: number;
  /** For symlinks: the link target as written (relative), and no hash. */
  link?: string;
}

/**
 * What build, probe and smoke answered, and the fingerprint of everything those answers depend on (see
 * probe/inputs.ts). A later run with the same fingerprint reports this answer instead of asking again.
 */
export interface ReceiptProof {
  /** sha256 of the inputs: the prefix's plan, the driver libraries the loader would load (size and mtime), ... */
  inputs: string;
  at: string;
  /** The smoke kernel ran and passed under these inputs. */
  smoke: boolean;
  /** The verify stage's result as it was reported; its shape is pipeline/probe.ts's VerifyResult. */
  verify: unknown;
}

export interface ReceiptArchive {
  component: string;
  source: string;
  package: string;
  version: string;
  url: string;
  sha256: string;
  size: number;
}

export interface ReceiptComponent {
  name: string;
  version: string;
  source: string;
  /** What this version lacks compared with current releases, when the source is a fallback. */
  notes: string[];
  /** Default sources that failed before this one was used. */
  fallbackFrom?: string[];
  /** No reachable source met the manifest's recommended floor: what this version lacks, and which sources were not reached. */
  belowFloor?: BelowFloor;
}

export interface Receipt {
  schema: typeof RECEIPT_SCHEMA;
  tool: { name: 'xpu-setup'; version: string };
  platform: TargetPlatform;
  prefix: string;
  installedAt: string;
  /** sha256 of the plan's content that determines the prefix: equal key, nothing to do. */
  planKey: string;
  components: ReceiptComponent[];
  archives: ReceiptArchive[];
  files: ReceiptFile[];
  /** Probe results written after install (Triton variables), when a probe succeeded. */
  probe?: { arch?: string; extensions?: string[]; device?: string; driver?: string };
  /** Libraries the build stage made in the prefix (and their stamps), by role; also listed in `files`. */
  builds?: Partial<Record<'addon' | 'refdriver', string[]>>;
  /** Extra env vars the env files export (e.g. ZE_ENABLE_ALT_DRIVERS for the reference driver). */
  extraEnv?: Record<string, string>;
  /** What was asked for: a bare re-run repeats it. */
  request?: SetupRequest;
  /** The installed plan as lockfile data: lets a run with no index (or --offline) verify and reuse it. */
  plan?: LockedPlatform;
  /**
   * Components the request asked for (the default: every one) that no source could provide, with every source tried
   * and why: doctor's fix for a missing one is then what could work here, not the same run again.
   */
  skipped?: { name: string; tried: string[]; unreached: string[] }[];
  /** The last build, probe and smoke answers and their inputs; absent until a verification ran. */
  proof?: ReceiptProof;
}

/**
 * Orders records by path, byte-wise: the same order on every machine, whatever its locale, and without loading the
 * ICU collator (about 20 ms) for it.
 */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Far more than the receipt of any real prefix (tens of thousands of files take a few MiB). */
export const MAX_RECEIPT_BYTES = 32 * 1024 * 1024;

/** A receipt file that is there but is not one: too large, cut short, not JSON, or not xpu-setup's. */
function damaged(file: string, why: string, cause?: unknown): XpuError {
  return new XpuError('INSTALL', `the receipt ${file} is damaged: ${why}`, {
    cause,
    details: { file, receiptDamaged: true },
    hints: ['run xpu-setup again with the same --prefix: the prefix carries its own files, so it is reinstalled whole'],
  });
}

/**
 * The prefix's receipt; undefined when there is none (or of another schema). The receipt is input like any file: one
 * larger than MAX_RECEIPT_BYTES is not read, and one that is not a receipt fails with `details.receiptDamaged`.
 */
export async function readReceipt(prefix: string): Promise<Receipt | undefined> {
  const file = path.join(prefix, RECEIPT_NAME);
  let text: string;
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await fh.stat();
    if (size > MAX_RECEIPT_BYTES) throw damaged(file, `it is ${size} bytes, more than any xpu-setup writes (${MAX_RECEIPT_BYTES})`);
    text = await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
  let r: unknown;
  try {
    r = JSON.parse(text);
  } catch (e) {
    throw damaged(file, 'it is not JSON (cut short?)', e);
  }
  const rec = r as Partial<Receipt> | null;
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) throw damaged(file, 'it is not a receipt (not a JSON object)');
  if (rec.schema !== RECEIPT_SCHEMA) return undefined;
  if (!Array.isArray(rec.files) || !Array.isArray(rec.components)) throw damaged(file, 'its file or component list is missing');
  return rec as Receipt;
}
