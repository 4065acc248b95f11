// Removing a prefix xpu-setup made (never one it did not), and finding the lines in shell start-up files that load it.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';
import { withPrefixLock } from './lock.js';
import { readPrefixState } from './prefix-state.js';
import { RECEIPT_NAME, type Receipt } from '../records/receipt.js';
import { STARTUP_DIRS, STARTUP_FILES } from '../shells/index.js';

export interface Uninstalled {
  prefix: string;
  files: number;
  bytes: number;
  receipt: Receipt;
}

/** Where a prefix being removed waits, renamed, so that it disappears at once and a kill leaves no half prefix. */
const REMOVING = '.xpu-setup-removing-';

async function tally(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const d of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (d.isDirectory()) continue;
    files++;
    bytes += (await fs.lstat(path.join(d.parentPath, d.name)).catch(() => undefined))?.size ?? 0;
  }
  return { files, bytes };
}

/**
 * Removes `prefix` when its receipt says xpu-setup made it (the whole directory: an install replaces it whole, so it
 * holds nothing else), under the prefix lock so no setup writes it meanwhile. Anything else is refused untouched.
 */
export async function uninstallPrefix(prefix: string, opts: { onWait?: (pid: number) => void } = {}): Promise<Uninstalled> {
  const st = await fs.stat(prefix).catch(() => undefined);
  if (!st) {
    throw new XpuError('NOT_FOUND', `${prefix} does not exist, so there is nothing to uninstall`, {
      details: { prefix },
      hints: ['name the prefix you installed into with --prefix (or XPU_SETUP_PREFIX)'],
    });
  }
  if (!st.isDirectory()) {
    throw new XpuError('NOT_OURS', `${prefix} is a file, not a prefix xpu-setup made; nothing was removed`, { details: { prefix } });
  }
  const notOurs = () =>
    new XpuError('NOT_OURS', `${prefix} has no readable ${RECEIPT_NAME}, so xpu-setup did not make it (or its install never finished); nothing was removed`, {
      details: { prefix },
      // Never "remove it yourself": the directory may be /etc. Point at the prefix that was meant instead.
      hints: ['check the path: name the prefix you installed into with --prefix (`xpu-setup doctor` prints the one it looks at); without --prefix, the default one is removed'],
    });
  // Refused before the lock is taken: the lock file sits beside the prefix, and a directory not ours gets nothing written beside it.
  if (!(await readPrefixState(prefix)).receipt) throw notOurs();
  return withPrefixLock(prefix, async () => {
    const { receipt } = await readPrefixState(prefix);
    if (!receipt) throw notOurs();
    const { files, bytes } = await tally(prefix);
    const aside = path.join(path.dirname(prefix), `${path.basename(prefix)}${REMOVING}${randomBytes(4).toString('hex')}`);
    try {
      await fs.rename(prefix, aside);
    } catch (e) {
      throw new XpuError('INSTALL', `cannot remove ${prefix}: ${(e as Error).message}`, {
        cause: e,
        details: { prefix },
        hints: ['a program may be using a library in it (Windows keeps loaded DLLs), or its parent directory is not writable: close it, or fix the permissions, and run again'],
      });
    }
    // Earlier removals that were killed half way are swept with this one.
    const base = `${path.basename(prefix)}${REMOVING}`;
    for (const n of await fs.readdir(path.dirname(prefix))) {
      if (n.startsWith(base)) await fs.rm(path.join(path.dirname(prefix), n), { recursive: true, force: true });
    }
    return { prefix, files, bytes, receipt };
  }, { onWait: opts.onWait });
}

/** A start-up file's line that loads the prefix: where it is and what it says. */
export interface StartupLine {
  file: string;
  line: number;
  text: string;
}

/**
 * Pure: the lines of a start-up file that load `prefix` (its env file or `xpu-setup env --prefix` with its path, the
 * home directory written as ~, $HOME, ${HOME}, $env:USERPROFILE or %USERPROFILE%), and, for the default prefix, the
 * `xpu-setup env` lines that name no prefix. Comments are left out.
 */
export function linesLoadingPrefix(text: string, prefix: string, home: string, isDefault: boolean): { line: number; text: string }[] {
  const win = /^[A-Za-z]:[\\/]/.test(prefix);
  const norm = (s: string) => (win ? s.replace(/\//g, '\\').toLowerCase() : s);
  const want = norm(prefix.replace(/[\\/]+$/, ''));
  const homeTrim = home.replace(/[\\/]+$/, '');
  const out: { line: number; text: string }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const body = raw.trim();
    if (!body || body.startsWith('#') || /^rem\s/i.test(body)) return;
    const expanded = norm(
      body
        .replace(/\$\{HOME\}|\$HOME\b|\$env:USERPROFILE\b|\$env:HOME\b|%USERPROFILE%/gi, homeTrim)
        .replace(/(^|[\s'"=:(])~(?=[\\/])/g, `$1${homeTrim}`),
    );
    let at = expanded.indexOf(want);
    let hit = false;
    while (at >= 0 && !hit) {
      const next = expanded[at + want.length];
      hit = next === undefined || /[\\/'"\s;)`]/.test(next);
      at = expanded.indexOf(want, at + 1);
    }
    if (!hit && isDefault) hit = /xpu-setup\s+env\b/.test(body) && !/--prefix/.test(body);
    if (hit) out.push({ line: i + 1, text: body });
  });
  return out;
}

/** Every start-up file line under `home` that loads `prefix`: the shells' start-up files (shells/), those that exist. */
export async function startupLinesFor(prefix: string, home: string, isDefault: boolean, configHome = path.join(home, '.config')): Promise<StartupLine[]> {
  const at = (f: string) => (f.startsWith('.config/') ? path.join(configHome, f.slice('.config/'.length)) : path.join(home, f));
  const files = STARTUP_FILES.map(at);
  for (const { dir, ext } of STARTUP_DIRS) {
    for (const n of (await fs.readdir(at(dir)).catch(() => [] as string[])).sort()) if (n.endsWith(ext)) files.push(path.join(at(dir), n));
  }
  const found: StartupLine[] = [];
  for (const file of files) {
    const text = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    for (const l of linesLoadingPrefix(text, prefix, home, isDefault)) found.push({ file, ...l });
  }
  return found;
}
