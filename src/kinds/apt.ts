// The apt source kind: Debian/Ubuntu archives through the machine's own apt, versions and SHA256 from apt-cache, and
// `apt:` archives downloaded with apt-get (apt's own mirrors and proxy) into the verified cache.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { hashMismatch, sha256File, type CachedFile, type DownloadCache } from '../cache/store.js';
import type { Deps } from '../deps.js';
import { XpuError } from '../errors.js';
import { isDebianLike } from '../host/linux.js';
import { layoutFor } from '../host/index.js';
import type { PlannedArchive } from '../records/archive.js';
import { checkSkip, isStrArr } from './closure.js';
import { NotAvailable, type Kind, type Resolution, type SourceBase, type SourceContext } from './kind.js';

export interface AptSourceSpec extends SourceBase {
  kind: 'apt';
  packages: string[];
}

/** The URL scheme of an archive apt-get downloads: `apt:<package>=<version>`. */
const SCHEME = 'apt:';
import { inRange } from '../versions/range.js';
import { debianUpstream, meetsAll } from '../versions/order.js';

export interface AptRecord {
  package: string;
  version: string;
  architecture?: string;
  filename?: string;
  sha256?: string;
  size?: number;
}

/** Parses `apt-cache show` output (RFC 822 stanzas); continuation lines are ignored. */
export function parseAptCacheShow(text: string): AptRecord[] {
  const out: AptRecord[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const f: Record<string, string> = {};
    for (const line of stanza.split('\n')) {
      const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
      if (m) f[m[1]!.toLowerCase()] = m[2]!.trim();
    }
    if (!f.package || !f.version) continue;
    out.push({
      package: f.package,
      version: f.version,
      architecture: f.architecture,
      filename: f.filename,
      sha256: f.sha256,
      size: f.size ? Number(f.size) : undefined,
    });
  }
  return out;
}

/** `1.8.12-1` -> `1.8.12`: the upstream version without epoch or Debian revision. */
export async function resolveApt(spec: AptSourceSpec, ctx: SourceContext): Promise<Resolution> {
  if (!ctx.host.native || !layoutFor(ctx.host.platform).systemPackages || !isDebianLike(ctx.host.distro)) {
    throw new NotAvailable('apt is only used on a Debian or Ubuntu machine installing for itself');
  }
  const archives: PlannedArchive[] = [];
  // One apt-cache call for all packages: each call loads apt's whole cache (most of a second).
  const r = await ctx.deps.exec('apt-cache', ['show', '--no-all-versions', ...spec.packages], { timeoutMs: 30_000 });
  if (r.failedToStart) throw new NotAvailable(`apt-cache cannot run: ${r.failedToStart}`);
  const records = parseAptCacheShow(r.stdout);
  for (const pkg of spec.packages) {
    const rec = records.find((x) => x.package === pkg);
    if (!rec) throw new NotAvailable(`apt knows no package ${pkg} (run apt-get update?)`);
    if (!rec.sha256) throw new NotAvailable(`apt lists ${pkg} without a SHA256`);
    if (!inRange('debian', rec.version, spec.versions)) {
      throw new NotAvailable(`apt has ${pkg} ${rec.version}, outside ${spec.versions}`);
    }
    if (!meetsAll(rec.version, ctx.constraints ?? [], 'debian')) {
      throw new NotAvailable(`apt has ${pkg} ${rec.version}, which does not meet ${ctx.constraints!.map((c) => c.text).join(', ')}`);
    }
    archives.push({
      package: pkg,
      version: rec.version,
      filename: rec.filename ? path.posix.basename(rec.filename) : `${pkg}_${rec.version}.deb`,
      url: `${SCHEME}${pkg}=${rec.version}`,
      sha256: rec.sha256,
      size: rec.size,
      format: 'deb',
      map: spec.map,
    });
  }
  const distro = ctx.host.distro!;
  return {
    source: 'apt',
    origin: distro.prettyName ?? distro.id,
    version: debianUpstream(archives[0]!.version),
    archives,
  };
}

/** Downloads an `apt:` archive with apt-get into the cache, then checks it against the SHA256 apt-cache listed. */
export async function fetchApt(archive: PlannedArchive, cache: DownloadCache, deps: Deps): Promise<CachedFile> {
  const hit = await cache.lookup(archive.sha256);
  if (hit) return hit;
  const spec = archive.url.slice(SCHEME.length);
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

export const apt: Kind<AptSourceSpec> = {
  name: 'apt',
  ordering: 'debian',
  validate(s, bad) {
    if (!isStrArr(s.packages)) throw bad('"packages" must be a non-empty list of names');
    checkSkip((s as { skip?: unknown }).skip, bad);
  },
  resolve: resolveApt,
  describe: () => 'apt',
  // apt reads the machine's own sources.list through apt-get, not an index of ours.
  indexes: () => [],
  recordedIndexes: () => [],
  fetcher: { scheme: SCHEME, fetch: fetchApt },
};
