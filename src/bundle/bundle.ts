// A bundle: one directory that is a conda channel, a PEP 503 simple index and a lockfile at once, for offline fleets.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { fetchPlan, type FetchNet } from '../fetch/fetch.js';
import type { TargetPlatform } from '../platform/types.js';
import { layoutFor } from '../platform/index.js';
import { LOCKFILE_NAME, lockedOf, newLockfile, readLockfile, writeLockfile } from '../plan/lockfile.js';
import type { Lockfile } from '../records/lock.js';
import type { InstallPlan } from '../records/plan.js';
import type { Reporter } from '../base/reporter.js';
import type { RepodataRecord } from '../index/repodata.js';
import { normalizeName } from '../versions/pep508.js';
import { withVerifiedSizes, type PlannedArchive } from '../records/archive.js';
import { readWheelMetadata } from '../formats/wheel.js';

export interface BundleResult {
  out: string;
  lockfile: string;
  platforms: TargetPlatform[];
  files: { path: string; sha256: string; size: number }[];
}

/** Where an archive lives inside the bundle, relative to its root (always with forward slashes). */
export function bundlePath(a: PlannedArchive, platform: TargetPlatform): string {
  if (a.format === 'conda' || a.format === 'tar.bz2') return `${layoutFor(platform).condaSubdir}/${a.filename}`;
  if (a.format === 'wheel') return `simple/${normalizeName(a.package)}/${a.filename}`;
  return `files/${a.filename}`;
}

/**
 * What the bundle is, by what it holds: a conda channel of its conda packages, a simple index only when it has wheels,
 * and other archives (an apt .deb, a pinned zip) under files/, which only its lockfile reaches.
 */
export function bundleSummary(dir: string, files: { path: string }[], subdirs: string[]): string {
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const wheels = files.filter((f) => f.path.startsWith('simple/')).length;
  const other = files.filter((f) => f.path.startsWith('files/')).length;
  const conda = files.length - wheels - other;
  const parts = [
    `conda channel (${subdirs.join(', ')}: ${count(conda, 'package')})`,
    wheels ? `PEP 503 simple index (${count(wheels, 'wheel')})` : '',
    other ? `${count(other, 'other archive')} under files/, for the lockfile only (no index serves them)` : '',
    LOCKFILE_NAME,
  ];
  return `bundle ${dir}: ${count(files.length, 'archive')}: ${parts.filter(Boolean).join(', ')}`;
}

/** `h6ad65f8_0` -> 0: conda build strings end in the build number. */
function buildNumber(build: string | undefined): number {
  const m = /_(\d+)$/.exec(build ?? '');
  return m ? Number(m[1]) : 0;
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

interface RepodataDoc {
  info: { subdir: string };
  repodata_version: 1;
  packages: Record<string, RepodataRecord>;
  'packages.conda': Record<string, RepodataRecord>;
  removed: string[];
}

async function writeRepodata(out: string, subdir: string, archives: PlannedArchive[]): Promise<void> {
  const file = path.join(out, subdir, 'repodata.json');
  const doc: RepodataDoc = (await readJson<RepodataDoc>(file)) ?? { info: { subdir }, repodata_version: 1, packages: {}, 'packages.conda': {}, removed: [] };
  for (const a of archives) {
    const rec: RepodataRecord = {
      name: a.package,
      version: a.version,
      build: a.build ?? '0',
      build_number: buildNumber(a.build),
      depends: a.depends ?? [],
      ...(a.constrains?.length ? { constrains: a.constrains } : {}),
      sha256: a.sha256,
      size: a.size,
      subdir,
    };
    doc[a.format === 'conda' ? 'packages.conda' : 'packages'][a.filename] = rec;
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(doc, null, 1) + '\n');
}

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * PEP 503 pages from the wheels present under simple/: one page per project, links carrying #sha256=, and each wheel's
 * METADATA beside it as `<wheel>.metadata` (PEP 658), so pip and uv resolve its dependencies from the bundle too.
 */
async function writeSimpleIndex(out: string): Promise<void> {
  const root = path.join(out, 'simple');
  const projects = (await fs.readdir(root, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  for (const p of projects) {
    const dir = path.join(root, p);
    const wheels = (await fs.readdir(dir)).filter((n) => n.endsWith('.whl')).sort();
    const links: string[] = [];
    for (const w of wheels) {
      const hash = createHash('sha256').update(await fs.readFile(path.join(dir, w))).digest('hex');
      const metadata = await readWheelMetadata(path.join(dir, w));
      let attrs = '';
      if (metadata) {
        await fs.writeFile(path.join(dir, `${w}.metadata`), metadata);
        const m = createHash('sha256').update(metadata).digest('hex');
        attrs = ` data-core-metadata="sha256=${m}" data-dist-info-metadata="sha256=${m}"`;
      }
      links.push(`<a href="${escapeHtml(encodeURIComponent(w))}#sha256=${hash}"${attrs}>${escapeHtml(w)}</a><br/>`);
    }
    const page = `<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0"><title>Links for ${escapeHtml(p)}</title></head>\n<body><h1>Links for ${escapeHtml(p)}</h1>\n${links.join('\n')}\n</body></html>\n`;
    await fs.writeFile(path.join(dir, 'index.html'), page);
  }
  if (projects.length) {
    const list = projects.map((p) => `<a href="${escapeHtml(p)}/">${escapeHtml(p)}</a><br/>`).join('\n');
    await fs.writeFile(path.join(root, 'index.html'), `<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0"><title>Simple index</title></head>\n<body>\n${list}\n</body></html>\n`);
  }
}

/**
 * Fetches every archive of each plan (verified, through the cache) and lays the bundle out under `out`. A bundle
 * already there keeps its other platforms: their lock entries, repodata and wheels stay.
 */
export async function writeBundle(plans: InstallPlan[], out: string, deps: Deps, reporter: Reporter, net: FetchNet): Promise<BundleResult> {
  const dir = path.resolve(out);
  await fs.mkdir(dir, { recursive: true });
  const lockFile = path.join(dir, LOCKFILE_NAME);
  const previous: Lockfile | undefined = await fs.access(lockFile).then(() => readLockfile(lockFile), () => undefined);
  const platforms: Lockfile['platforms'] = { ...(previous?.platforms ?? {}) };
  const files: BundleResult['files'] = [];
  for (const plan of plans) {
    if (!plan.request) throw new XpuError('INTERNAL', 'a bundle needs a plan that records its request');
    const fetched = await fetchPlan(plan, deps, reporter, net);
    for (const f of fetched) {
      const rel = bundlePath(f.archive, plan.platform);
      const dest = path.join(dir, ...rel.split('/'));
      await fs.mkdir(path.dirname(dest), { recursive: true });
      await fs.copyFile(f.file.path, dest);
      files.push({ path: rel, sha256: f.file.sha256, size: f.file.size });
    }
    const conda = fetched.map((f) => f.archive).filter((a) => a.format === 'conda' || a.format === 'tar.bz2');
    await writeRepodata(dir, layoutFor(plan.platform).condaSubdir, conda);
    // conda clients read noarch/ of every channel; an empty one makes the directory a complete channel.
    if (!(await readJson(path.join(dir, 'noarch', 'repodata.json')))) await writeRepodata(dir, 'noarch', []);
    // The plan as lockfile data, its archives pointing into the bundle, each with the size verified on download.
    const verified = new Map(fetched.map((f) => [f.file.sha256, f.file.size]));
    platforms[plan.platform] = lockedOf({
      ...plan,
      components: plan.components.map((c) => ({
        ...c,
        archives: withVerifiedSizes(c.archives, verified).map((a) => ({ ...a, url: bundlePath(a, plan.platform) })),
      })),
    });
  }
  await writeSimpleIndex(dir);
  await writeLockfile(lockFile, newLockfile(plans[0]!.request!, platforms));
  reporter.info(bundleSummary(dir, files, [...new Set(plans.map((p) => layoutFor(p.platform).condaSubdir))]));
  return { out: dir, lockfile: lockFile, platforms: plans.map((p) => p.platform), files };
}
