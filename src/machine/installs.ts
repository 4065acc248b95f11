// A summary of the Level Zero and UR pieces already on this machine (and in a prefix), for `plan` and `doctor`.
import { isInside, nodeLayout } from '../platform/index.js';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import type { Receipt } from '../records/receipt.js';
import { findZeHeaders, type HeaderInstall } from './headers.js';
import { readLdconfig, type LdconfigEntry } from './ldconfig.js';
import { findInDirs, resolveLibrary, versionFromFileName, type LibraryCandidate, type LibraryResolution } from './loaders.js';
import { owningPackage } from './packages.js';
import { detectUr, prefixLibDirs, type UrInstall } from './ur.js';

export interface VersionInfo {
  version: string;
  /** Where the version came from: "dpkg libze1", "rpm level-zero", "receipt", "file name". */
  source: string;
}

export interface LoaderInstall extends LibraryCandidate {
  version?: VersionInfo;
}

export interface HeaderInstallWithVersion extends HeaderInstall {
  /** Release version of the package the headers came from, when known (API version is in info). */
  version?: VersionInfo;
}

export interface InstallsSummary {
  zeLoader: {
    /** What programs would load, and the copies it shadows. */
    resolution: LibraryResolution;
    chosen?: LoaderInstall;
    shadowed: LoaderInstall[];
    /** The prefix's own copy, whether or not it is on the search path. */
    prefixCopy?: LoaderInstall;
  };
  zeHeaders: HeaderInstallWithVersion[];
  ur: UrInstall;
  tried: string[];
}

export function zeLoaderName(platform: NodeJS.Platform): string {
  return nodeLayout(platform).zeLoaderRuntime;
}

/** Pure: the L0 component version a receipt records. */
export function receiptZeVersion(receipt: Receipt | undefined): string | undefined {
  const c = receipt?.components.find((x) => /level.?zero|^ze|l0/i.test(x.name) && !/devel|dev$|headers/i.test(x.name));
  return c?.version ?? receipt?.components.find((x) => /level.?zero/i.test(x.name))?.version;
}

async function versionOf(deps: Deps, file: string, prefix: string | undefined, receipt: Receipt | undefined): Promise<VersionInfo | undefined> {
  if (prefix && receipt && isInside(prefix, file)) {
    const v = receiptZeVersion(receipt);
    if (v) return { version: v, source: 'receipt' };
  }
  if (nodeLayout(deps.platform).systemPackages) {
    const pkg = await owningPackage(deps, file);
    if (pkg) return { version: pkg.version, source: `${pkg.manager} ${pkg.name}` };
  }
  const v = versionFromFileName(file);
  return v ? { version: v, source: 'file name' } : undefined;
}

/** For headers: the package that owns them, else a level-zero.pc next to them, else the receipt. */
async function headerVersion(deps: Deps, h: HeaderInstall, prefix: string | undefined, receipt: Receipt | undefined): Promise<VersionInfo | undefined> {
  if (prefix && receipt && h.source === 'prefix') {
    const v = receiptZeVersion(receipt);
    if (v) return { version: v, source: 'receipt' };
  }
  const layout = nodeLayout(deps.platform);
  if (layout.systemPackages) {
    const pkg = await owningPackage(deps, h.header);
    if (pkg) return { version: pkg.version, source: `${pkg.manager} ${pkg.name}` };
    const root = path.posix.dirname(h.includeDir);
    for (const d of ['lib/pkgconfig', `lib/${layout.arch.multiarch}/pkgconfig`, 'lib64/pkgconfig', 'share/pkgconfig']) {
      const pc = await deps.readFile(path.posix.join(root, d, 'level-zero.pc'));
      const m = pc ? /^Version:\s*(\S+)/m.exec(pc) : null;
      if (m) return { version: m[1]!, source: `${path.posix.join(root, d, 'level-zero.pc')}` };
    }
  }
  return undefined;
}

export async function detectInstalls(
  deps: Deps,
  opts: { prefix?: string; receipt?: Receipt; ldcache?: LdconfigEntry[] } = {},
): Promise<InstallsSummary> {
  const tried: string[] = [];
  let ldcache = opts.ldcache;
  if (!ldcache && nodeLayout(deps.platform).ldconfig) {
    const l = await readLdconfig(deps);
    ldcache = l.found;
    tried.push(...l.tried);
  }
  const name = zeLoaderName(deps.platform);
  // The loader, the headers and UR share nothing but the cache: look for them at once; tried[] keeps this order.
  const loaderPart = async () => {
    const t: string[] = [];
    const resolution = await resolveLibrary(deps, name, { ldcache });
    t.push(...resolution.tried);
    const withVersion = async (c: LibraryCandidate): Promise<LoaderInstall> => {
      const v = await versionOf(deps, c.realPath ?? c.path, opts.prefix, opts.receipt);
      return v ? { ...c, version: v } : { ...c };
    };
    const [shadowed, chosen] = await Promise.all([Promise.all(resolution.shadowed.map(withVersion)), resolution.chosen && withVersion(resolution.chosen)]);
    const zeLoader: InstallsSummary['zeLoader'] = { resolution, shadowed };
    if (chosen) zeLoader.chosen = chosen;
    if (opts.prefix) {
      const copies = await findInDirs(deps, name, prefixLibDirs(deps.platform, opts.prefix));
      if (copies[0]) zeLoader.prefixCopy = await withVersion(copies[0]);
      t.push(`${opts.prefix}: ${copies[0] ? `has ${copies[0].path}` : `no ${name}`}`);
    }
    return { zeLoader, tried: t };
  };
  const headersPart = async () => {
    const headers = await findZeHeaders(deps, opts.prefix);
    const zeHeaders = await Promise.all(
      headers.found.map(async (h) => {
        const v = await headerVersion(deps, h, opts.prefix, opts.receipt);
        return v ? { ...h, version: v } : { ...h };
      }),
    );
    return { zeHeaders, tried: headers.tried };
  };
  const [loader, headers, ur] = await Promise.all([loaderPart(), headersPart(), detectUr(deps, { prefix: opts.prefix, ldcache })]);
  const zeLoader = loader.zeLoader;
  const zeHeaders = headers.zeHeaders;
  tried.push(...loader.tried, ...headers.tried, ...ur.tried);
  return { zeLoader, zeHeaders, ur: ur.found, tried };
}
