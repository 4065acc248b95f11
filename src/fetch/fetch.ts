// Fetch stage: every planned archive, of every source kind, into the verified cache, several at once, with one progress line.
import * as fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DownloadCache, hashMismatch, sha256File, type CachedFile } from '../cache/store.js';
import { XpuError } from '../base/errors.js';
import { ownFetcherOf } from '../kinds/index.js';
import type { Deps } from '../base/deps.js';
import type { Http } from '../net/http.js';
import type { InstallPlan } from '../records/plan.js';
import type { Reporter } from '../base/reporter.js';
import type { PlannedArchive } from '../records/archive.js';
import { downloadToCache } from '../net/download.js';
import type { CachePolicy } from '../index/http-cache.js';
import { LiveDownload } from './live.js';

export interface FetchedArchive {
  archive: PlannedArchive;
  component: string;
  file: CachedFile;
}

const CONCURRENCY = 4;

function mib(n: number): string {
  return `${(n / 1048576).toFixed(1)} MiB`;
}

/**
 * What a fetch goes through: the run's HTTP client and its cache policy (the run's gateway is one). Under
 * `cache-only` every missing archive is named with its URL and hash, and nothing is downloaded.
 */
export interface FetchNet {
  readonly http: Http;
  readonly policy: CachePolicy;
}

export interface FetchOptions {
  /**
   * Archives (by sha256) fetched only once `release` names them: the runtime packages a decision may leave to the
   * host. The others go first, so the decision can read them while these wait.
   */
  held?: ReadonlySet<string>;
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

/** A fetch under way: each archive can be used as soon as it is in the cache, before the others are. */
export interface Fetching {
  /** One promise per archive, in plan order; each settles when that archive is verified in the cache, or the fetch failed. */
  archives: Promise<FetchedArchive>[];
  /** Every archive, once all are in; rejects with the first failure, after every download has stopped. */
  all: Promise<FetchedArchive[]>;
  /** Stops the downloads still running (their partial files are kept for the next run) and waits until they have. */
  cancel(): Promise<void>;
  /** Archive `i` as its download writes it, for unpacking while it arrives; undefined where nothing can follow it. */
  live?(i: number): LiveDownload | undefined;
}

/** The run's one fetch of a plan whose runtime packages are held until decided (FetchOptions.held). */
export interface RunFetch extends Fetching {
  /** The archive's file once it is verified in the cache. */
  of(archive: PlannedArchive): Promise<FetchedArchive>;
  /** The held archives to fetch after all; the held ones not named are never fetched. The first call decides. */
  release(keep: readonly PlannedArchive[]): void;
  /** The same fetch as a plan of these archives sees it (a decided plan: some held archives left out), in its order. */
  as(plan: InstallPlan): Fetching;
}

interface Settle {
  resolve(f: FetchedArchive): void;
  reject(e: unknown): void;
}

type Job = { archive: PlannedArchive; component: string };

function plannedJobs(plan: InstallPlan): Job[] {
  return plan.components
    .filter((c) => c.status === 'planned')
    .flatMap((c) => c.archives.map((archive) => ({ archive, component: c.name })));
}

/**
 * Starts the one fetch of a run: every planned archive, several at once, the held ones once released; nothing waits
 * for it until a promise is awaited.
 */
export function startFetch(plan: InstallPlan, deps: Deps, reporter: Reporter, net: FetchNet, opts: FetchOptions = {}): RunFetch {
  const jobs = plannedJobs(plan);
  const run = startJobs(plan, jobs, deps, reporter, net, opts.held ?? new Set());
  const index = new Map(jobs.map((j, i) => [j.archive.sha256, i]));
  const at = (sha256: string): number => {
    const i = index.get(sha256);
    if (i === undefined) throw new XpuError('INTERNAL', `archive ${sha256} is not in this run's fetch`, { details: { sha256 } });
    return i;
  };
  return {
    ...run,
    of: (a) => run.archives[at(a.sha256)]!,
    as: (other) => {
      const seen = plannedJobs(other).map((j) => ({ j, i: at(j.archive.sha256) }));
      const archives = seen.map(({ j, i }) => run.archives[i]!.then((f) => ({ ...f, archive: j.archive, component: j.component })));
      const all = run.all.then(() => Promise.all(archives));
      // As with the fetch's own: what a caller that stopped early (a held archive left out, a failure) no longer awaits.
      for (const p of [...archives, all]) p.catch(() => undefined);
      return { archives, all, cancel: run.cancel, live: (k) => run.live?.(seen[k]!.i) };
    },
  };
}

function startJobs(plan: InstallPlan, jobs: Job[], deps: Deps, reporter: Reporter, net: FetchNet, held: ReadonlySet<string>): Omit<RunFetch, 'of' | 'as'> {
  const settle: Settle[] = [];
  const archives = jobs.map(() => new Promise<FetchedArchive>((resolve, reject) => settle.push({ resolve, reject })));
  // A caller that stopped early (its own failure) no longer awaits the rest: their rejections are not unhandled.
  for (const p of archives) p.catch(() => undefined);
  const stop = new AbortController();
  const lives = jobs.map(() => new LiveDownload());
  const gate = new Gate(jobs, held);
  const all = fetchAll(plan, jobs, gate, settle, lives, stop, deps, reporter, net).catch((e: unknown) => {
    for (const s of settle) s.reject(e);
    for (const l of lives) l.end(e);
    throw e;
  });
  all.catch(() => undefined);
  return {
    archives,
    all,
    live: (i) => lives[i],
    release: (keep) => gate.open(keep),
    cancel: async () => {
      stop.abort();
      gate.open([]);
      await all.catch(() => undefined);
    },
  };
}

/** The held archives of a fetch: waited for until released, then fetched or left out. */
class Gate {
  private readonly kept = new Set<string>();
  private opened?: () => void;
  readonly ready: Promise<void>;
  constructor(
    private readonly jobs: Job[],
    private readonly held: ReadonlySet<string>,
  ) {
    this.ready = held.size ? new Promise((resolve) => (this.opened = resolve)) : Promise.resolve();
  }
  isHeld(j: Job): boolean {
    return this.held.has(j.archive.sha256);
  }
  /** The work in the order it is taken: what is not held first, so a decision waiting on it never waits on held work. */
  order(): number[] {
    const idx = this.jobs.map((_, i) => i);
    return [...idx.filter((i) => !this.isHeld(this.jobs[i]!)), ...idx.filter((i) => this.isHeld(this.jobs[i]!))];
  }
  open(keep: readonly PlannedArchive[]): void {
    for (const a of keep) if (this.held.has(a.sha256)) this.kept.add(a.sha256);
    this.opened?.();
  }
  wanted(j: Job): boolean {
    return !this.isHeld(j) || this.kept.has(j.archive.sha256);
  }
}

export async function fetchPlan(plan: InstallPlan, deps: Deps, reporter: Reporter, net: FetchNet, opts: FetchOptions = {}): Promise<FetchedArchive[]> {
  return startFetch(plan, deps, reporter, net, opts).all;
}

/** Under the `cache-only` policy: every archive the cache lacks, named with its URL and hash; nothing is downloaded. */
async function refuseMissing(jobs: { archive: PlannedArchive }[], cache: DownloadCache, cacheDir: string): Promise<void> {
  const missing: PlannedArchive[] = [];
  // A local file (a bundle directory's archives) is its own offline source: only what needs the network can be missing.
  for (const j of jobs) if (!j.archive.url.startsWith('file:') && !(await cache.lookup(j.archive.sha256))) missing.push(j.archive);
  if (!missing.length) return;
  throw new XpuError('OFFLINE', `--offline: ${missing.length} of ${jobs.length} archives are not in the cache ${cacheDir}`, {
    details: { cacheDir, missing: missing.map((a) => ({ url: a.url, sha256: a.sha256, size: a.size })) },
    hints: [
      ...missing.map((a) => `missing ${a.url} sha256 ${a.sha256}`),
      'run once with the network (same flags, without --offline) to fill the cache, or install from a bundle with --from',
    ],
  });
}

/**
 * The fetch's progress line, from each download's progress. An index without sizes (PEP 503 HTML) leaves the total
 * to each response's Content-Length; until every size is known the line shows only what arrived, never a total that
 * is too small. Held archives join it (`add`) once released.
 */
function progressOf(jobs: { archive: PlannedArchive }[], task: ReturnType<Reporter['task']>): { on(url: string, p: { received: number; total?: number }): void; add(more: { archive: PlannedArchive }[]): void } {
  const sizes = new Map(jobs.map((j) => [j.archive.url, j.archive.size]));
  const received = new Map<string, number>();
  const done = () => [...received.values()].reduce((a, b) => a + b, 0);
  const total = () => {
    const known = [...sizes.values()];
    return known.every((s) => s !== undefined) ? known.reduce((a: number, b) => a + b!, 0) : undefined;
  };
  return {
    add: (more) => {
      for (const j of more) sizes.set(j.archive.url, j.archive.size);
    },
    on: (url, p) => {
      received.set(url, p.received);
      if (sizes.get(url) === undefined && p.total) sizes.set(url, p.total);
      task.update(() => {
        const t = total();
        return t ? `${mib(done())} / ${mib(t)}` : mib(done());
      }, () => {
        const t = total();
        return t ? done() / t : undefined;
      });
    },
  };
}

/** A kind that fetches many archives at once (apt) is asked once, for every archive of the plan it fetches. */
function startBatches(jobs: { archive: PlannedArchive }[], cache: DownloadCache, deps: Deps): Map<unknown, Promise<Map<string, CachedFile>>> {
  const batches = new Map<unknown, Promise<Map<string, CachedFile>>>();
  for (const j of jobs) {
    const own = ownFetcherOf(j.archive);
    if (!own?.fetchMany || batches.has(own)) continue;
    const batch = own.fetchMany(jobs.filter((k) => ownFetcherOf(k.archive) === own).map((k) => k.archive), cache, deps);
    batch.catch(() => undefined);
    batches.set(own, batch);
  }
  return batches;
}

async function fetchAll(
  plan: InstallPlan,
  jobs: Job[],
  gate: Gate,
  settle: Settle[],
  lives: LiveDownload[],
  stop: AbortController,
  deps: Deps,
  reporter: Reporter,
  net: FetchNet,
): Promise<FetchedArchive[]> {
  const cache = new DownloadCache(plan.cacheDir, {
    damaged: (entry, what) => reporter.warn(`the cache entry ${entry} was damaged (${what} where a downloaded file belongs): removed, and the archive fetched again`),
  });
  const http = net.http;
  const swept = await cache.sweep();
  if (swept) reporter.debug(`removed ${swept} stale partial download(s) from ${plan.cacheDir}`);
  if (!jobs.length) return [];
  const first = jobs.filter((j) => !gate.isHeld(j));
  if (net.policy === 'cache-only') await refuseMissing(first, cache, plan.cacheDir);
  const task = reporter.task(`fetching ${first.length} archive${first.length === 1 ? '' : 's'}`);
  const progress = progressOf(first, task);
  const results: (FetchedArchive | undefined)[] = new Array(jobs.length);
  const batches = startBatches(first, cache, deps);
  // The held archives join the same fetch once released: the ones kept are counted, checked and batched then.
  const released = gate.ready.then(async () => {
    const kept = jobs.filter((j) => gate.isHeld(j) && gate.wanted(j));
    if (net.policy === 'cache-only') await refuseMissing(kept, cache, plan.cacheDir);
    progress.add(kept);
    for (const [own, batch] of startBatches(kept, cache, deps)) batches.set(own, batch);
  });
  released.catch(() => undefined);
  const queue = gate.order();
  let next = 0;
  let reused = 0;
  const signal = stop.signal;
  const worker = async () => {
    while (next < queue.length && !signal.aborted) {
      const i = queue[next++]!;
      const { archive, component } = jobs[i]!;
      if (gate.isHeld(jobs[i]!)) {
        await released;
        if (!gate.wanted(jobs[i]!) || signal.aborted) {
          settle[i]!.reject(new XpuError('INTERNAL', `${archive.filename} was left out of this fetch`, { details: { url: archive.url } }));
          lives[i]!.end();
          continue;
        }
      }
      const own = ownFetcherOf(archive);
      const batch = own && batches.get(own);
      const file = batch
        ? (await batch).get(archive.sha256)!
        : own
        ? await own.fetch(archive, cache, deps)
        : archive.url.startsWith('file:')
          ? await fromFile(archive, cache)
          : await downloadToCache(http, cache, archive.url, { sha256: archive.sha256, size: archive.size }, { signal, live: lives[i], onProgress: (p) => progress.on(archive.url, p) });
      if (file.cached) reused++;
      reporter.debug(`${file.cached ? 'cached' : 'fetched'} ${archive.filename} sha256 ${archive.sha256}`);
      results[i] = { archive, component, file };
      lives[i]!.end();
      settle[i]!.resolve(results[i]!);
    }
  };
  // The first failure stops the other downloads; the fetch ends once every one of them has stopped.
  let failure: { error: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, jobs.length) }, () =>
      worker().catch(async (e: unknown) => {
        stop.abort();
        // Held archives wait for a release that a failed fetch will never get: they are left out.
        gate.open([]);
        const error = await cache.failure(e);
        failure ??= { error };
      }),
    ),
  );
  if (failure || signal.aborted) {
    task.fail(failure ? 'fetch failed' : 'fetch stopped');
    throw failure ? failure.error : new XpuError('INTERNAL', 'the fetch was stopped before every archive was in', { details: {} });
  }
  const done = results.filter((r): r is FetchedArchive => !!r);
  task.succeed(`fetched and verified ${done.length} archive${done.length === 1 ? '' : 's'}${reused ? ` (${reused} from cache)` : ''}`);
  return done;
}
