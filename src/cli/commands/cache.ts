// `xpu-setup cache dir|size|clean [--older-than AGE]`: where the cache is, what each part takes, and emptying it.
import * as path from 'node:path';
import { cacheParts, cleanPart, parseDuration, partUsage, type PartUsage } from '../../cache/usage.js';
import { EnvVars } from '../../base/env-names.js';
import { XpuError } from '../../base/errors.js';
import { defaultCacheDir } from '../../platform/index.js';
import { packagePath } from '../../package-dir.js';
import { str, type Command } from '../command.js';
import { nearest } from '../options.js';
import { CACHE_ACTIONS } from '../choices.js';

export function bytesText(n: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (n < 1024) return `${n} B`;
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

const filesText = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

function table(rows: PartUsage[]): string[] {
  const w = Math.max(...rows.map((r) => r.title.length));
  const fw = Math.max(...rows.map((r) => filesText(r.files).length));
  const bw = Math.max(...rows.map((r) => bytesText(r.bytes).length));
  return rows.map((r) => `  ${r.title.padEnd(w)}  ${filesText(r.files).padStart(fw)}  ${bytesText(r.bytes).padStart(bw)}  ${r.path}`);
}

/**
 * What `cache clean` removed: the cache directory's files, counted apart from the code cache, which is not in it:
 * xpu-setup's own V8 code cache beside the bundle, shared by every run of this installed package.
 */
export function cleanedWords(rows: PartUsage[], cacheDir: string, scope: string): string {
  const own = total(rows.filter((r) => r.id !== 'code'));
  const code = rows.find((r) => r.id === 'code' && r.files > 0);
  const also = code
    ? `, and ${filesText(code.files)} (${bytesText(code.bytes)}) of xpu-setup's V8 code cache in ${code.path}, which every run of this installed package shares (written again on the next start)`
    : '';
  return `removed ${filesText(own.files)}${scope} (${bytesText(own.bytes)}) from ${cacheDir}${also}`;
}

const total = (rows: PartUsage[]) => ({ files: rows.reduce((n, r) => n + r.files, 0), bytes: rows.reduce((n, r) => n + r.bytes, 0) });

export const cacheCommand: Command = {
  name: 'cache',
  async run({ deps, values, positionals, out }) {
    const action = positionals[0];
    if (action === undefined || !(CACHE_ACTIONS as readonly string[]).includes(action)) {
      const guess = action === undefined ? undefined : nearest(action, CACHE_ACTIONS);
      throw new XpuError('USAGE', action === undefined ? 'cache needs an action: dir, size or clean' : `unknown cache action "${action}"`, {
        hints: [guess ? `did you mean ${guess}?` : 'example: xpu-setup cache size'],
      });
    }
    const olderText = str(values, 'older-than');
    if (olderText !== undefined && action !== 'clean') throw new XpuError('USAGE', `--older-than goes with clean, not ${action}`);
    const olderThanMs = olderText === undefined ? undefined : parseDuration(olderText);
    if (olderText !== undefined && olderThanMs === undefined) {
      throw new XpuError('USAGE', `--older-than ${olderText}: not an age`, { hints: ['a number and a unit: 30d, 12h, 2w, 90m, 45s'] });
    }
    const cacheDir = path.resolve(str(values, 'cache-dir') ?? defaultCacheDir(deps));
    // The code cache sits beside the bundle (bin/xpu-setup.js writes it there), not in the cache directory; with
    // XPU_SETUP_CODE_CACHE=0 nothing reads or writes it, and neither does this command.
    const parts = cacheParts(cacheDir, deps.env[EnvVars.XPU_SETUP_CODE_CACHE] === '0' ? undefined : packagePath('dist'));
    const doc = { schema: 1, kind: 'xpu-setup.cache', dir: cacheDir };

    if (action === 'dir') {
      if (out.opts.json) out.json({ ...doc, parts: parts.map((p) => ({ id: p.id, title: p.title, path: p.path })) });
      else out.result(cacheDir);
      return 0;
    }
    if (action === 'size') {
      const rows = await Promise.all(parts.map(partUsage));
      const sum = total(rows);
      if (out.opts.json) out.json({ ...doc, parts: rows, total: sum });
      else out.result([`${cacheDir}: ${bytesText(sum.bytes)} in ${sum.files} files`, ...table(rows)].join('\n'));
      return 0;
    }
    const now = deps.now();
    const rows: PartUsage[] = [];
    for (const p of parts) {
      try {
        rows.push(await cleanPart(p, { now, olderThanMs }));
      } catch (e) {
        throw new XpuError('INSTALL', `cannot clean the ${p.title} in ${p.path}: ${(e as Error).message}`, {
          cause: e,
          details: { path: p.path },
          hints: ['check that you own the cache directory; files removed before this one stay removed'],
        });
      }
    }
    const sum = total(rows);
    const scope = olderText === undefined ? '' : ` not used for ${olderText}`;
    if (out.opts.json) out.json({ ...doc, olderThan: olderText ?? null, removed: rows, total: sum });
    else out.result([cleanedWords(rows, cacheDir, scope), ...table(rows)].join('\n'));
    return 0;
  },
};

export const run = cacheCommand.run;
