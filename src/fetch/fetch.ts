// Fetch stage: every planned archive, of every source kind, into the verified cache, several at once, with one progress line.
import * as fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DownloadCache, hashMismatch, sha256File, type CachedFile } from '../cache/store.js';
import { XpuError } from '../errors.js';
import type { Deps } from '../deps.js';
import { httpFor } from '../net/http.js';
import type { InstallPlan } from '../plan/plan.js';
import type { Reporter } from '../reporter.js';
import type { PlannedArchive } from '../sources/types.js';
import { fetchApt } from './apt.js';
import { downloadToCache } from './download.js';

export interface FetchedArchive {
  archive: PlannedArchive;
  component: string;
  file: CachedFile;
}

const CONCURRENCY = 4;

function mib(n: number): string {
  return `${(n / 1048576).toFixed(1)} MiB`;
}

export interface FetchOptions {
  /** The cache only: every missing archive is named with its URL and hash, and nothing is downloaded. */
  offline?: boolean;
}

/** A bundle on disk: the archive is copied into the cache and verified like a download. */
async function fromFile(archive: PlannedArchive, cache: DownloadCache): Promise<CachedFile> {
  const hit = await cache.lookup(archive.sha256);
  if (hit) return hit;
  const src = fileURLToPath(archive.url);
  const tmp = await cache.tempFile(archive.filename);
  try {
    await fs.copyFile(src, tmp).catch((e: unknown) => {
      throw new XpuError('NOT_FOUND', `${src} is missing from the bundle`, { cause: e, details: { url: archive.url }, hints: ['make the bundle again: xpu-setup bundle'] });
    });
    const actual = await sha256File(tmp);
    if (actual !== archive.sha256) throw hashMismatch(archive.url, archive.sha256, actual);
    return await cache.adopt(tmp, actual, (await fs.stat(tmp)).size);
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

export async function fetchPlan(plan: InstallPlan, deps: Deps, reporter: Reporter, opts: FetchOptions = {}): Promise<FetchedArchive[]> {
  const cache = new DownloadCache(plan.cacheDir);
  const http = httpFor(deps.env);
  const swept = await cache.sweep();
  if (swept) reporter.debug(`removed ${swept} stale partial download(s) from ${plan.cacheDir}`);
  const jobs = plan.components
    .filter((c) => c.status === 'planned')
    .flatMap((c) => c.archives.map((archive) => ({ archive, component: c.name })));
  if (!jobs.length) return [];
  if (opts.offline) {
    const missing: PlannedArchive[] = [];
    for (const j of jobs) if (!(await cache.lookup(j.archive.sha256))) missing.push(j.archive);
    if (missing.length) {
      throw new XpuError('OFFLINE', `--offline: ${missing.length} of ${jobs.length} archives are not in the cache ${plan.cacheDir}`, {
        details: { cacheDir: plan.cacheDir, missing: missing.map((a) => ({ url: a.url, sha256: a.sha256, size: a.size })) },
        hints: [
          ...missing.map((a) => `missing ${a.url} sha256 ${a.sha256}`),
          'run once with the network (same flags, without --offline) to fill the cache, or install from a bundle with --from',
        ],
      });
    }
  }
  // An index without sizes (PEP 503 HTML) leaves the total to each response's Content-Length; until every size is
  // known the line shows only what arrived, never a total that is too small.
  const sizes = new Map(jobs.map((j) => [j.archive.url, j.archive.size]));
  const received = new Map<string, number>();
  const task = reporter.task(`fetching ${jobs.length} archive${jobs.length === 1 ? '' : 's'}`);
  const results: FetchedArchive[] = new Array(jobs.length);
  let next = 0;
  let reused = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      const { archive, component } = jobs[i]!;
      const file = archive.url.startsWith('apt:')
        ? await fetchApt(archive, cache, deps)
        : archive.url.startsWith('file:')
          ? await fromFile(archive, cache)
          : await downloadToCache(http, cache, archive.url, { sha256: archive.sha256, size: archive.size }, {
            onProgress: (p) => {
              received.set(archive.url, p.received);
              if (sizes.get(archive.url) === undefined && p.total) sizes.set(archive.url, p.total);
              const done = [...received.values()].reduce((a, b) => a + b, 0);
              const known = [...sizes.values()];
              const total = known.every((s) => s !== undefined) ? known.reduce((a: number, b) => a + b!, 0) : undefined;
              task.update(total ? `${mib(done)} / ${mib(total)}` : mib(done));
            },
          });
      if (file.cached) reused++;
      reporter.debug(`${file.cached ? 'cached' : 'fetched'} ${archive.filename} sha256 ${archive.sha256}`);
      results[i] = { archive, component, file };
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, jobs.length) }, worker));
  } catch (e) {
    task.fail('fetch failed');
    throw e;
  }
  task.succeed(`fetched and verified ${jobs.length} archive${jobs.length === 1 ? '' : 's'}${reused ? ` (${reused} from cache)` : ''}`);
  return results;
}
