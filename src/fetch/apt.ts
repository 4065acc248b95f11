// An `apt:` archive into the verified cache: apt-get download (apt's own mirrors and proxy), then the SHA256 apt-cache listed.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { hashMismatch, sha256File, type CachedFile, type DownloadCache } from '../cache/store.js';
import type { Deps } from '../deps.js';
import { XpuError } from '../errors.js';
import type { PlannedArchive } from '../sources/types.js';

/** Downloads an `apt:` archive with apt-get into the cache, then checks it against the SHA256 apt-cache listed. */
export async function fetchApt(archive: PlannedArchive, cache: DownloadCache, deps: Deps): Promise<CachedFile> {
  const hit = await cache.lookup(archive.sha256);
  if (hit) return hit;
  const spec = archive.url.slice('apt:'.length);
  const dir = path.dirname(await cache.tempFile(archive.filename));
  const work = await fs.mkdtemp(path.join(dir, 'apt-'));
  try {
    const r = await deps.exec('apt-get', ['download', '-q', '-o', 'APT::Sandbox::User=root', spec], { cwd: work, timeoutMs: 300_000 });
    const got = (await fs.readdir(work)).filter((n) => n.endsWith('.deb'));
    if (r.exitCode !== 0 || got.length !== 1) {
      throw new XpuError('NETWORK', `apt-get download ${spec} failed`, {
        details: { url: archive.url, stderr: r.stderr || r.failedToStart },
        hints: ['check that apt can reach its archive (apt-get update), or choose another source with --source'],
      });
    }
    const file = path.join(work, got[0]!);
    const actual = await sha256File(file);
    if (actual !== archive.sha256) throw hashMismatch(archive.url, archive.sha256, actual);
    const size = (await fs.stat(file)).size;
    return await cache.adopt(file, actual, size);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
