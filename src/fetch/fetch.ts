// Fetch stage: every planned archive, of every source kind, into the verified cache, several at once, with one progress line.
import { DownloadCache, type CachedFile } from '../cache/store.js';
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

export async function fetchPlan(plan: InstallPlan, deps: Deps, reporter: Reporter): Promise<FetchedArchive[]> {
  const cache = new DownloadCache(plan.cacheDir);
  const http = httpFor(deps.env);
  const swept = await cache.sweep();
  if (swept) reporter.debug(`removed ${swept} stale partial download(s) from ${plan.cacheDir}`);
  const jobs = plan.components
    .filter((c) => c.status === 'planned')
    .flatMap((c) => c.archives.map((archive) => ({ archive, component: c.name })));
  if (!jobs.length) return [];
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
