// The fingerprint of everything a probe's answer depends on, read without running anything: equal fingerprints let
// setup report the receipt's last answer instead of building, probing and running the kernel again.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { EnvVars, PROBE_ENV_PREFIXES } from '../base/env-names.js';
import { chosenDrivers } from '../roles/index.js';
import { nodeLayout, osLayout } from '../platform/index.js';
import type { Receipt } from '../records/receipt.js';
import type { Look } from '../cache/quick-answers.js';
import { VERSION } from '../base/version.js';

/** A file as the fingerprint sees it: where, how big, when last written; absent files are left out. */
type FileMark = [path: string, size: number, mtimeMs: number];

/** Marks a file, noting the look (absent files too) in `looked`. */
async function mark(file: string, looked: Look[]): Promise<FileMark | undefined> {
  const s = await fs.stat(file).catch(() => undefined);
  looked.push({ k: 'sized', p: file, v: s ? [s.size, s.mtimeMs] : null });
  return s ? [file, s.size, s.mtimeMs] : undefined;
}

async function marks(files: string[], looked: Look[]): Promise<FileMark[]> {
  return (await Promise.all(files.map((f) => mark(f, looked)))).filter((m): m is FileMark => m !== undefined);
}

/** A directory's names (none when it cannot be listed), noting the look. */
async function names(dir: string, looked: Look[]): Promise<string[]> {
  const v = await fs.readdir(dir).catch(() => undefined);
  looked.push({ k: 'dir', p: dir, v: v ? [...v].sort() : null });
  return v ?? [];
}

/**
 * Every copy of every driver library the loader would try, by size and mtime (stat follows the symlink to the
 * versioned file, so a driver upgrade changes the mark): the driver choice's list when set, else the default
 * driver names, each along the library search path.
 */
export function driverCandidates(deps: Pick<Deps, 'platform' | 'env'>, recordedAltDrivers?: string): string[] {
  const alt = chosenDrivers(deps.env) ?? recordedAltDrivers;
  const names = alt ? alt.split(',').filter(Boolean) : nodeLayout(deps.platform).zeDriverLibraries;
  const out: string[] = [];
  for (const name of names) {
    if (path.isAbsolute(name) || path.win32.isAbsolute(name)) out.push(name);
    else out.push(...nodeLayout(deps.platform).librarySearch(name, deps.env).map((c) => c.path));
  }
  return out;
}

/** Linux places whose change can change the answer without touching a driver library's own file. */
async function linuxSystemMarks(env: Deps['env'], looked: Look[]): Promise<unknown> {
  // ldconfig rewrites the cache whenever a library is installed or removed, so a driver found through it is covered.
  const vendors = env[EnvVars.OCL_ICD_VENDORS] ?? '/etc/OpenCL/vendors';
  const icds = (await names(vendors, looked)).map((n) => path.join(vendors, n));
  const dri = (await names('/dev/dri', looked)).filter((n) => n.startsWith('render'));
  const nodes = await Promise.all(
    dri.map(async (n) => {
      const s = await fs.stat(path.join('/dev/dri', n)).catch(() => undefined);
      looked.push({ k: 'owner', p: path.join('/dev/dri', n), v: s ? [s.mode, s.uid, s.gid] : null });
      return s ? [n, s.mode, s.uid, s.gid] : [n];
    }),
  );
  // Joining the render group shows a GPU that was hidden.
  const groups = process.getgroups ? process.getgroups().sort((a, b) => a - b) : [];
  return { ldcache: await mark('/etc/ld.so.cache', looked), icds: await marks(icds.sort(), looked), renderNodes: nodes, groups };
}

export interface ProofInputs {
  key: string;
  /** What went into the key, for --verbose and for tests. */
  parts: Record<string, unknown>;
  /**
   * Every file, directory and device node read for it, with what was read (files that were absent too, and the
   * process's groups aside): what a quick answer's record looks at again (cache/quick-answers.ts).
   */
  looked: Look[];
}

/**
 * The fingerprint of a prefix's build, probe and smoke answers. `files` names what the caller knows and this stage may
 * not import (the runtime addon's build output), each marked by size and mtime like the driver libraries.
 */
export async function proofInputs(
  prefix: string,
  receipt: Pick<Receipt, 'planKey' | 'extraEnv'>,
  deps: Pick<Deps, 'platform' | 'env'>,
  files: Record<string, string | undefined> = {},
): Promise<ProofInputs> {
  const looked: Look[] = [];
  const extra: Record<string, unknown> = {};
  for (const [name, file] of Object.entries(files)) extra[name] = file ? await mark(file, looked) : undefined;
  const env = Object.entries(deps.env)
    .filter(([k, v]) => v !== undefined && PROBE_ENV_PREFIXES.some((p) => k.startsWith(p)))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // The library search path is part of the answers; the DLL search's PATH is not among the probe's own variables.
  const layout = nodeLayout(deps.platform);
  const searchVar = layout.libraryPathVar;
  if (!PROBE_ENV_PREFIXES.some((p) => searchVar.startsWith(p))) env.push([searchVar, deps.env[searchVar] ?? deps.env.Path]);
  const parts: Record<string, unknown> = {
    tool: VERSION,
    node: `${process.version} ${process.arch}`,
    prefix,
    planKey: receipt.planKey,
    extraEnv: receipt.extraEnv ?? {},
    env,
    drivers: await marks(driverCandidates(deps, chosenDrivers(receipt.extraEnv)), looked),
    system: osLayout(deps.platform)?.renderNodes ? await linuxSystemMarks(deps.env, looked) : undefined,
    ...extra,
  };
  return { key: createHash('sha256').update(JSON.stringify(parts)).digest('hex'), parts, looked };
}
