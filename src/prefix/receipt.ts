// The prefix receipt: what was installed, from where, with which hashes. Written last, read by setup and doctor.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';
import { RECEIPT_NAME, RECEIPT_SCHEMA, type Receipt } from '../records/receipt.js';
import { recordedRequest } from '../records/recorded-request.js';

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
  if (rec.request) rec.request = recordedRequest(rec.request);
  return rec as Receipt;
}
