// The lockfile: per platform, every archive (URL, size, sha256, map) a plan chose, so a later run installs exactly that.
import { createHash, randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { XpuError } from '../base/errors.js';
import { isInside } from '../platform/index.js';
import type { Host, TargetPlatform } from '../platform/types.js';
import type { ComponentManifest } from '../manifest/schema.js';
import { LOCKFILE_SCHEMA, type LockedComponent, type LockedPlatform, type Lockfile } from '../records/lock.js';
import { VERSION } from '../base/version.js';
import { newInstallPlan } from './key.js';
import type { InstallPlan, PlannedComponent } from '../records/plan.js';
import { belowFloorOf } from './request.js';
import { recordedRequest } from '../records/recorded-request.js';
import type { SetupRequest } from '../records/plan.js';
import type { Http } from '../net/http.js';

export const LOCKFILE_NAME = 'xpu-setup.lock.json';

/** JSON with every object's keys sorted, so the key does not depend on how an editor ordered them. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The entry's key (see LockedPlatform.key), over its components as they stand in the file. */
export function lockKeyOf(platform: TargetPlatform, components: LockedComponent[]): string {
  return createHash('sha256').update(canonical({ schema: LOCKFILE_SCHEMA, platform, components })).digest('hex');
}

/**
 * The part of a plan that decides the prefix, as plain data: what `lock` and `bundle` write, and (handed to the
 * install) what the receipt records so a run with no index can repeat it.
 */
export function lockedOf(plan: Pick<InstallPlan, 'planKey' | 'components' | 'platform'>): LockedPlatform {
  const components: LockedComponent[] = plan.components
      .filter((c) => c.status === 'planned')
      .map((c) => {
        const l: LockedComponent = { name: c.name, source: c.source!, origin: c.origin!, version: c.version!, archives: c.archives };
        if (c.constraints) l.constraints = c.constraints;
        if (c.fallbackFrom) l.fallbackFrom = c.fallbackFrom;
        if (c.leftToHost) l.leftToHost = c.leftToHost;
        return l;
      });
  return { planKey: plan.planKey, key: lockKeyOf(plan.platform, components), components };
}

export interface FromLockedOptions {
  prefix: string;
  cacheDir: string;
  request?: SetupRequest;
  from: NonNullable<InstallPlan['from']>;
  /** Rewrites each archive's URL (a bundle's relative paths to where the bundle is). */
  relocate?: (url: string) => string;
}

/** An InstallPlan that asks no index: every archive as the lock recorded it; provides and loader flag from manifests. */
export function planFromLocked(host: Host, manifests: ComponentManifest[], locked: LockedPlatform, opts: FromLockedOptions): InstallPlan {
  checkLockKey(host.platform, locked, opts.from);
  const components: PlannedComponent[] = locked.components.map((l) => {
    const m = manifests.find((x) => x.name === l.name);
    if (!m) {
      throw new XpuError('LOCKFILE', `${opts.from.path} names component "${l.name}", which no manifest describes`, {
        details: { file: opts.from.path },
        hints: ['write the lockfile again with this version of xpu-setup: xpu-setup lock'],
      });
    }
    const pc: PlannedComponent = {
      name: l.name,
      explicit: true,
      status: 'planned',
      source: l.source,
      origin: l.origin,
      version: l.version,
      archives: l.archives.map((a) => (opts.relocate ? { ...a, url: opts.relocate(a.url) } : a)),
      provides: m.platforms[host.platform]?.provides ?? [],
      notes: [],
      attempts: [{ source: l.source, outcome: 'chosen', reason: `${opts.from.kind} ${opts.from.path}: ${l.archives.map((a) => `${a.package} ${a.version}`).join(', ')}` }],
    };
    if (m.roles?.length) pc.roles = [...m.roles];
    if (l.constraints) pc.constraints = l.constraints;
    if (l.fallbackFrom) pc.fallbackFrom = l.fallbackFrom;
    if (l.leftToHost) pc.leftToHost = l.leftToHost;
    const below = opts.request && belowFloorOf(m, l.version, l.source, opts.request);
    if (below) pc.belowFloor = below;
    return pc;
  });
  const plan = newInstallPlan(host, opts, components);
  if (plan.planKey !== locked.planKey) {
    throw new XpuError('LOCKFILE', `${opts.from.path}: the ${host.platform} entry does not match its own planKey (edited by hand, or written by another layout version)`, {
      details: { file: opts.from.path, expected: locked.planKey, actual: plan.planKey },
      hints: ['write it again: xpu-setup lock'],
    });
  }
  plan.from = opts.from;
  if (opts.request) plan.request = opts.request;
  return plan;
}

/** Refuses an entry whose fields no longer match its key: edited by hand, or written before the key covered them. */
function checkLockKey(platform: TargetPlatform, locked: LockedPlatform, from: FromLockedOptions['from']): void {
  if (locked.key === undefined && from.kind === 'receipt') return;
  const actual = lockKeyOf(platform, locked.components);
  if (locked.key === actual) return;
  const what = locked.key === undefined ? 'has no key over its fields (written by an earlier xpu-setup)' : 'does not match its key: a version, URL, size, sha256, source, origin or map was edited by hand';
  throw new XpuError('LOCKFILE', `${from.path}: the ${platform} entry ${what}`, {
    details: { file: from.path, platform, expected: locked.key, actual },
    hints: ['nothing was installed; write it again from the indexes: xpu-setup lock (or xpu-setup bundle for a bundle)'],
  });
}

export function parseLockfile(text: string, where: string): Lockfile {
  let doc: Lockfile;
  try {
    doc = JSON.parse(text) as Lockfile;
  } catch (e) {
    throw new XpuError('LOCKFILE', `${where} is not valid JSON`, { cause: e, details: { file: where }, hints: ['write it again: xpu-setup lock'] });
  }
  if (!doc || doc.schema !== LOCKFILE_SCHEMA || typeof doc.platforms !== 'object' || !doc.request) {
    throw new XpuError('LOCKFILE', `${where} is not an xpu-setup lockfile (schema ${LOCKFILE_SCHEMA})`, { details: { file: where }, hints: ['write it again: xpu-setup lock'] });
  }
  return { ...doc, request: recordedRequest(doc.request) };
}

export async function readLockfile(file: string): Promise<Lockfile> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new XpuError('LOCKFILE', `cannot read the lockfile ${file}`, {
      cause: e,
      details: { file },
      hints: ['write one first: xpu-setup lock [--platform linux-x64,win-x64]', 'or name it: --locked PATH'],
    });
  }
  return parseLockfile(text, file);
}

export interface LockSource {
  lock: Lockfile;
  /** The lockfile's path or URL, for messages and the plan's `from`. */
  where: string;
  entry(platform: TargetPlatform): LockedPlatform;
  /** Bundles list archives relative to themselves: this makes each URL absolute (http(s) or file:). */
  relocate?: (url: string) => string;
}

const isHttp = (s: string): boolean => /^https?:\/\//i.test(s);

/**
 * A bundle directory's lockfile. A directory that is not there is a mistyped --from (a usage error); one without a
 * lockfile is not a bundle. Neither is about writing a lockfile with `lock`.
 */
async function readBundleLockfile(asked: string, dir: string, where: string): Promise<Lockfile> {
  const make = 'a bundle is a directory `xpu-setup bundle --platform ... --out DIR` wrote (or its URL)';
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat) throw new XpuError('USAGE', `--from ${asked}: there is no directory ${dir}`, { details: { bundle: dir }, hints: [make] });
  if (!stat.isDirectory()) throw new XpuError('USAGE', `--from ${asked}: ${dir} is a file, not a bundle directory`, { details: { bundle: dir }, hints: [make] });
  let text: string;
  try {
    text = await fs.readFile(where, 'utf8');
  } catch (e) {
    throw new XpuError('LOCKFILE', `${dir} is not a bundle: it has no ${LOCKFILE_NAME}`, { cause: e, details: { file: where, bundle: dir }, hints: [make] });
  }
  return parseLockfile(text, where);
}

/** A lockfile on disk, or a bundle's (a directory, or a URL that serves one, read with the run's client), read with no other request. */
export async function loadLockSource(src: { file: string } | { bundle: string }, http: Pick<Http, 'getText'>): Promise<LockSource> {
  let lock: Lockfile;
  let where: string;
  let relocate: ((url: string) => string) | undefined;
  if ('file' in src) {
    where = path.resolve(src.file);
    lock = await readLockfile(where);
  } else if (isHttp(src.bundle)) {
    const base = src.bundle.endsWith('/') ? src.bundle : `${src.bundle}/`;
    where = new URL(LOCKFILE_NAME, base).href;
    lock = parseLockfile((await http.getText(where)).body, where);
    const root = new URL(base);
    relocate = (u) => {
      const abs = new URL(u, base);
      if (abs.origin !== root.origin || !abs.pathname.startsWith(root.pathname) || /%2e|%2f|%5c/i.test(u)) throw outsideBundle(where, u, base);
      return abs.href;
    };
  } else {
    const dir = path.resolve(src.bundle);
    where = path.join(dir, LOCKFILE_NAME);
    lock = await readBundleLockfile(src.bundle, dir, where);
    const realDir = realpathSync(dir);
    relocate = (u) => {
      // Only paths relative to the bundle: no scheme (http:, file:, ...), no absolute path, no way out by ".." or a link.
      if (/^[a-z][a-z0-9+.-]*:/i.test(u) || u.startsWith('/') || u.startsWith('\\')) throw outsideBundle(where, u, dir);
      const abs = path.resolve(dir, ...u.split(/[\\/]/));
      if (!isInside(dir, abs) || !isInside(realDir, realPathOf(abs))) throw outsideBundle(where, u, dir);
      return pathToFileURL(abs).href;
    };
  }
  return { lock, where, relocate, entry: (platform) => lockedPlatform(lock, platform, where) };
}

/** Where `p` really is: its nearest existing ancestor with every link resolved, and the rest as named. */
function realPathOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = path.dirname(p);
    return parent === p ? p : path.join(realPathOf(parent), path.basename(p));
  }
}

/** A bundle's lockfile naming an archive anywhere but under the bundle's own root. */
function outsideBundle(where: string, url: string, root: string): XpuError {
  return new XpuError('LOCKFILE', `${where} names the archive "${url}", which is not under the bundle ${root}`, {
    details: { file: where, url, bundle: root },
    hints: [
      'an install from a bundle (--from) reads only files under the bundle itself; nothing was fetched or installed',
      'make the bundle again with: xpu-setup bundle --platform ... --out DIR',
    ],
  });
}

export function lockedPlatform(lock: Lockfile, platform: TargetPlatform, file: string): LockedPlatform {
  const entry = lock.platforms[platform];
  if (!entry) {
    const have = Object.keys(lock.platforms);
    throw new XpuError('LOCKFILE', `${file} has no entry for ${platform}`, {
      details: { file, platform, platforms: have },
      hints: [`it has: ${have.join(', ') || 'nothing'}`, `add it: xpu-setup lock --platform ${[...have, platform].join(',')}`],
    });
  }
  return entry;
}

export async function writeLockfile(file: string, lock: Lockfile): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(lock, null, 2) + '\n');
  await fs.rename(tmp, file);
}

export function newLockfile(request: SetupRequest, platforms: Lockfile['platforms']): Lockfile {
  return { schema: LOCKFILE_SCHEMA, tool: { name: 'xpu-setup', version: VERSION }, request, platforms };
}
