// GitHub releases of intel/compute-runtime and intel/intel-graphics-compiler as a local server on 127.0.0.1: the REST
// API's JSON (`/repos/{owner}/{repo}/releases`, `/releases/tags/{tag}`, `/contents/{path}?ref=`), a `ww<WW>.sum` as
// sha256sum writes it, a `manifests/manifest.yml` in compute-runtime's format, and downloads that redirect to an
// object store as github.com's do.
//
// The .debs are a REPACK, not Intel's builds: Debian 12's real driver files (intel-opencl-icd 22.43.24595.41-1, libigc1,
// libigdfcl1, libigdgmm12, libopencl-clang14, from .ci/fixtures.sh) split into Intel's release packages
// (libze-intel-gpu1, intel-opencl-icd, intel-ocloc, libigdgmm12, intel-igc-core-2, intel-igc-opencl-2) with Intel's
// package names, file layout (IGC under usr/local/lib) and control fields; the Depends on libraries are the Debian
// packages' own, which is what the repacked files need. Intel's real 25.x debs need glibc 2.38 and do not load on
// Debian 12; these do, so the install can be proven here end to end.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { buildCacheDirOnce, ensureGpuDriverDebs, fixtureCacheDir } from './debs.js';
import { ensureModernDebs, MODERN, type ModernDeb } from './github-modern.js';

const run = promisify(execFile);

/** The compute-runtime release the repack stands for: the version of Debian 12's files. */
export const CR_TAG = '22.43.24595.41';
/** The IGC release Debian built beside it (1.0.12504.6), tagged as IGC tags its 1.x releases. */
export const IGC_TAG = 'igc-1.0.12504.6';
export const IGC_VERSION = '1.0.12504.6';
/** IGC's package version: `<version>+<build>`, as its release debs name it. */
const IGC_DEB_VERSION = `${IGC_VERSION}+12504`;
export const GMM_VERSION = '22.3.3';
/** A newer IGC release that the manifest.yml does not pin: never to be taken. */
export const IGC_NEWER_TAG = 'igc-1.0.12812.26';
/** An older compute-runtime release, and a newer draft one: the newest published one is taken. */
export const CR_OLDER_TAG = '22.39.24347.5';
export const CR_DRAFT_TAG = '22.49.25018.21';

const DEBIAN = {
  icd: 'intel-opencl-icd_22.43.24595.41-1_amd64.deb',
  igc: 'libigc1_1.0.12504.6-1+deb12u1_amd64.deb',
  fcl: 'libigdfcl1_1.0.12504.6-1+deb12u1_amd64.deb',
  gmm: 'libigdgmm12_22.3.3+ds1-1_amd64.deb',
  clang: 'libopencl-clang14_14.0.0-4_amd64.deb',
} as const;

/** Debian's package names of the repacked files: their Depends on each other become Intel's. */
const DEBIAN_SET = new Set(['intel-opencl-icd', 'libigc1', 'libigc1+llvm14', 'libigdfcl1', 'libigdfcl1+llvm14', 'libigdgmm12', 'libopencl-clang14']);

interface RepackDef {
  package: string;
  version: string;
  filename: string;
  source: string;
  homepage: string;
  section: string;
  /** Members taken from the Debian packages: [deb, member path in it, path in this package]. */
  files: [keyof typeof DEBIAN, string, string][];
  /** Intel's own relations between its packages. */
  depends: string[];
  extra?: Record<string, string>;
  description: string;
}

const LIB = 'usr/lib/x86_64-linux-gnu';
const LOCAL = 'usr/local/lib';
const V = `${CR_TAG}-0`;

const REPACKS: RepackDef[] = [
  {
    package: 'libze-intel-gpu1',
    version: V,
    filename: `libze-intel-gpu1_${V}_amd64.deb`,
    source: 'intel-compute-runtime',
    homepage: 'https://github.com/intel/compute-runtime',
    section: 'libs',
    files: [
      ['icd', `${LIB}/libze_intel_gpu.so.1.3.24595`, `${LIB}/libze_intel_gpu.so.1.3.24595`],
      ['icd', `${LIB}/libze_intel_gpu.so.1`, `${LIB}/libze_intel_gpu.so.1`],
    ],
    depends: [`intel-igc-core-2 (>= ${IGC_VERSION})`, `intel-igc-core-2 (<< ${IGC_VERSION}+~)`, `libigdgmm12 (>= ${GMM_VERSION})`],
    extra: { Breaks: 'intel-level-zero-gpu, intel-opencl-icd (<< 23.26.26690.22-1)', Replaces: 'intel-level-zero-gpu, intel-opencl-icd (<< 23.26.26690.22-1)' },
    description: 'Intel(R) Graphics Compute Runtime for oneAPI Level Zero.',
  },
  {
    package: 'intel-opencl-icd',
    version: V,
    filename: `intel-opencl-icd_${V}_amd64.deb`,
    source: 'intel-compute-runtime',
    homepage: 'https://github.com/intel/compute-runtime',
    section: 'libs',
    files: [
      ['icd', 'etc/OpenCL/vendors/intel.icd', 'etc/OpenCL/vendors/intel.icd'],
      ['icd', `${LIB}/intel-opencl/libigdrcl.so`, `${LIB}/intel-opencl/libigdrcl.so`],
    ],
    depends: [`intel-igc-opencl-2 (>= ${IGC_VERSION})`, `intel-igc-opencl-2 (<< ${IGC_VERSION}+~)`, `libigdgmm12 (>= ${GMM_VERSION})`, 'ocl-icd-libopencl1'],
    extra: { Breaks: 'intel-opencl', Replaces: 'intel-opencl', Provides: 'opencl-icd' },
    description: 'Intel graphics compute runtime for OpenCL',
  },
  {
    package: 'intel-ocloc',
    version: V,
    filename: `intel-ocloc_${V}_amd64.deb`,
    source: 'intel-compute-runtime',
    homepage: 'https://github.com/intel/compute-runtime',
    section: 'libs',
    files: [
      ['icd', 'usr/bin/ocloc', 'usr/bin/ocloc'],
      ['icd', `${LIB}/libocloc.so`, `${LIB}/libocloc.so`],
    ],
    depends: [],
    extra: { Breaks: 'intel-opencl-icd (<< 23.26.26690.22-1)', Replaces: 'intel-opencl-icd (<< 23.26.26690.22-1)' },
    description: 'Tool for managing Intel Compute GPU device binary format',
  },
  {
    package: 'libigdgmm12',
    version: GMM_VERSION,
    filename: `libigdgmm12_${GMM_VERSION}_amd64.deb`,
    source: 'intel-gmmlib',
    homepage: 'https://github.com/intel/gmmlib',
    section: 'libs',
    files: [
      ['gmm', `${LIB}/libigdgmm.so.12.3.0`, `${LIB}/libigdgmm.so.12.3.0`],
      ['gmm', `${LIB}/libigdgmm.so.12`, `${LIB}/libigdgmm.so.12`],
    ],
    depends: [],
    description: 'Intel Graphics Memory Management Library -- shared library',
  },
  {
    package: 'intel-igc-core-2',
    version: IGC_DEB_VERSION,
    filename: `intel-igc-core-2_${IGC_DEB_VERSION}_amd64.deb`,
    source: 'intel-igc',
    homepage: 'https://github.com/intel/intel-graphics-compiler',
    section: 'libs',
    files: [
      ['igc', `${LIB}/libigc.so.1.0.1`, `${LOCAL}/libigc.so.1.0.1`],
      ['igc', `${LIB}/libigc.so.1`, `${LOCAL}/libigc.so.1`],
      ['igc', `${LIB}/libiga64.so.1.0.1`, `${LOCAL}/libiga64.so.1.0.1`],
      ['igc', `${LIB}/libiga64.so.1`, `${LOCAL}/libiga64.so.1`],
    ],
    depends: [],
    extra: { Conflicts: 'intel-igc-core', Replaces: 'intel-igc-core' },
    description: 'Intel(R) Graphics Compiler for OpenCL(TM) - core libraries',
  },
  {
    package: 'intel-igc-opencl-2',
    version: IGC_DEB_VERSION,
    filename: `intel-igc-opencl-2_${IGC_DEB_VERSION}_amd64.deb`,
    source: 'intel-igc',
    homepage: 'https://github.com/intel/intel-graphics-compiler',
    section: 'libs',
    files: [
      ['fcl', `${LIB}/libigdfcl.so.1.0.1`, `${LOCAL}/libigdfcl.so.1.0.1`],
      ['fcl', `${LIB}/libigdfcl.so.1`, `${LOCAL}/libigdfcl.so.1`],
      ['clang', `${LIB}/libopencl-clang.so.14`, `${LOCAL}/libopencl-clang.so.14`],
    ],
    depends: [`intel-igc-core-2 (= ${IGC_DEB_VERSION})`],
    extra: { Conflicts: 'intel-igc-opencl', Replaces: 'intel-igc-opencl' },
    description: 'Intel(R) Graphics Compiler for OpenCL(TM) - OpenCL front end',
  },
];

export interface RepackedDeb {
  package: string;
  version: string;
  filename: string;
  file: string;
  sha256: string;
  size: number;
}

const STAMP = 'repack-2';

/**
 * The Debian packages' own Depends on libraries that are not one of them (libc6, libllvm14, ...): what the repacked
 * files need. The ICD loader is intel-opencl-icd's own relation, as in Intel's control file.
 */
async function libraryDepends(deb: string): Promise<string[]> {
  const { stdout } = await run('dpkg-deb', ['-f', deb, 'Depends']);
  return stdout.trim().split(/,\s*/).filter((d) => d && !DEBIAN_SET.has(d.split(/[\s(]/)[0]!) && !d.startsWith('ocl-icd-libopencl1'));
}

/** Builds the repacked .debs once into the test cache (a fresh directory renamed into place), and returns them. */
export async function ensureRepackedDebs(): Promise<RepackedDeb[]> {
  const gpu = await ensureGpuDriverDebs();
  const debianDir = path.dirname(gpu.root);
  const out = path.join(fixtureCacheDir(), 'github-releases', STAMP);
  await buildCacheDirOnce(out, STAMP, async (work) => {
    const unpacked: Record<string, string> = {};
    for (const [key, name] of Object.entries(DEBIAN)) {
      unpacked[key] = path.join(work, 'debian', key);
      await fs.mkdir(unpacked[key]!, { recursive: true });
      await run('dpkg-deb', ['-x', path.join(debianDir, name), unpacked[key]!]);
    }
    for (const r of REPACKS) {
      const root = path.join(work, 'build', r.package);
      for (const [from, member, to] of r.files) {
        await fs.mkdir(path.dirname(path.join(root, to)), { recursive: true });
        await fs.cp(path.join(unpacked[from]!, member), path.join(root, to), { verbatimSymlinks: true });
      }
      const libs = new Set<string>();
      for (const key of new Set(r.files.map((f) => f[0]))) for (const d of await libraryDepends(path.join(debianDir, DEBIAN[key]))) libs.add(d);
      const { stdout: du } = await run('du', ['-sk', '--exclude=DEBIAN', root]);
      const fields: Record<string, string> = {
        Package: r.package,
        Source: r.source,
        Version: r.version,
        Architecture: 'amd64',
        Maintainer: 'Intel Graphics Team <linux-graphics@intel.com>',
        'Installed-Size': du.split(/\s/)[0]!,
        Depends: [...libs, ...r.depends].join(', '),
        ...r.extra,
        Section: r.section,
        Priority: 'optional',
        Homepage: r.homepage,
        Description: `${r.description}\n Test fixture: repacked from Debian 12's ${[...new Set(r.files.map((f) => DEBIAN[f[0]]))].join(', ')}.`,
      };
      if (!fields.Depends) delete fields.Depends;
      await fs.mkdir(path.join(root, 'DEBIAN'), { recursive: true });
      await fs.writeFile(path.join(root, 'DEBIAN', 'control'), Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join('\n') + '\n');
      await run('dpkg-deb', ['--root-owner-group', '-Zzstd', '--build', root, path.join(work, r.filename)]);
    }
    await fs.rm(path.join(work, 'debian'), { recursive: true, force: true });
    await fs.rm(path.join(work, 'build'), { recursive: true, force: true });
  });
  return Promise.all(
    REPACKS.map(async (r) => {
      const file = path.join(out, r.filename);
      const bytes = await fs.readFile(file);
      return { package: r.package, version: r.version, filename: r.filename, file, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
    }),
  );
}

/** compute-runtime's manifests/manifest.yml at a tag, in that file's format, pinning these IGC and gmmlib revisions. */
export function manifestYml(igcRevision: string, gmmRevision: string): string {
  return `components:
  aub_stream:
    branch: master
    dest_dir: aub_stream
    repository: https://github.com/intel/aubstream
    revision: 1e9d4b6bdb8b4e8ea2ab1f5c0a6a1e4e3a3f9c5e
    type: git
  gmmlib:
    asset_name: gmmlib
    dest_dir: gmmlib
    type: git
    branch: master
    revision: ${gmmRevision}
    repository: https://github.com/intel/gmmlib.git
  igc:
    asset_name: igc
    dest_dir: igc
    type: git
    branch: releases/igc-1.0.12504
    revision: ${igcRevision}
    repository: https://github.com/intel/intelgraphicscompiler
  igsc:
    asset_name: igsc
    dest_dir: igsc
    type: git
    branch: master
    revision: V0.8.3
    repository: https://github.com/intel/igsc.git
  level_zero:
    dest_dir: level_zero
    type: git
    branch: master
    revision: v1.8.8
    repository: https://github.com/oneapi-src/level-zero
converter: M-1819
version: '1'
`;
}

/** A sum list as `sha256sum` writes it. */
export const sumList = (entries: { name: string; sha256: string }[]): string => entries.map((e) => `${e.sha256}  ${e.name}\n`).join('');

/** What one API root serves: a working set, or one with a fault in its sum list, its digests or its pins. */
export type GithubVariant = 'good' | 'wrong-sum' | 'wrong-sum-no-digest' | 'missing-sum' | 'igc-by-commit' | 'rate-limited' | 'modern' | 'modern-no-range';
const VARIANTS: GithubVariant[] = ['good', 'wrong-sum', 'wrong-sum-no-digest', 'missing-sum', 'igc-by-commit', 'rate-limited', 'modern', 'modern-no-range'];

export interface GithubServer {
  url: string;
  /** The API root of a variant: what `--github-url` takes. */
  api(variant?: GithubVariant): string;
  debs: RepackedDeb[];
  /** Paths requested, in order. */
  requests: string[];
  /** Assets downloaded whole, and those read by a Range request (`<name> bytes=0-65535`), in order. */
  downloads: string[];
  ranges: string[];
  close(): Promise<void>;
}

/** The asset whose sha256 the faulty sum lists get wrong, and the one the short list leaves out. */
export const WRONG_ASSET = `intel-ocloc_${V}_amd64.deb`;
export const MISSING_ASSET = `libigdgmm12_${GMM_VERSION}_amd64.deb`;

interface Asset {
  name: string;
  bytes?: Buffer;
  file?: string;
  sha256: string;
  size: number;
  contentType: string;
}

const flip = (sha: string): string => (sha[0] === '0' ? '1' : '0') + sha.slice(1);

/**
 * The API roots: `good` and its faulty variants serve compute-runtime 22.43 (Debian 12's files repacked) beside an older
 * and a draft release; `modern` (with `{ modern: true }`) serves Intel's releases as they are now: 26.31 built for
 * glibc 2.43, 26.27 for 2.38 (github-modern.ts), and the 22.43 repack, each `ww<WW>.sum` with a stale line for the IGC
 * it pins (as compute-runtime's have had), IGC in its own repository with GitHub's digests. `modern-no-range` is the
 * same from a server that ignores Range (the whole file, HTTP 200).
 */
export async function startGithubServer(opts: { modern?: boolean } = {}): Promise<GithubServer> {
  const debs = await ensureRepackedDebs();
  const modern = opts.modern ? await ensureModernDebs() : [];
  const requests: string[] = [];
  const downloads: string[] = [];
  const ranges: string[] = [];
  const sockets = new Set<Socket>();
  const objects = new Map<string, Asset>();
  const deb = (d: RepackedDeb): Asset => ({ name: d.filename, file: d.file, sha256: d.sha256, size: d.size, contentType: 'application/vnd.debian.binary-package' });
  const text = (name: string, body: string): Asset => {
    const bytes = Buffer.from(body);
    return { name, bytes, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, contentType: 'application/octet-stream' };
  };
  const crDebs = debs.filter((d) => !d.package.startsWith('intel-igc'));
  const igcDebs = debs.filter((d) => d.package.startsWith('intel-igc'));
  let nextId = 1000;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://x');
    requests.push(u.pathname + u.search);
    const send = (status: number, type: string, body: Buffer | string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
      res.end(body);
    };
    const obj = /^\/objects\/(no-range\/)?([0-9a-f]{64})$/.exec(u.pathname);
    if (obj) {
      const a = objects.get(obj[2]!);
      if (!a) return send(404, 'text/plain', 'not found');
      const range = obj[1] ? undefined : /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      void (a.bytes ? Promise.resolve(a.bytes) : fs.readFile(a.file!)).then((b) => {
        if (!range) {
          downloads.push(a.name);
          return send(200, a.contentType, b, { 'accept-ranges': obj[1] ? 'none' : 'bytes' });
        }
        ranges.push(`${a.name} ${req.headers.range!}`);
        const from = Number(range[1]);
        const to = Math.min(Number(range[2]), b.length - 1);
        send(206, a.contentType, b.subarray(from, to + 1), { 'content-range': `bytes ${from}-${to}/${b.length}` });
      });
      return;
    }
    const m = /^\/(api-[a-z-]+)\/repos\/([^/]+\/[^/]+)\/(releases(?:\/tags\/([^/]+))?|contents\/(.+))$/.exec(u.pathname);
    const dl = /^\/(api-[a-z-]+)\/download\/([^/]+\/[^/]+)\/releases\/download\/([^/]+)\/([^/]+)$/.exec(u.pathname);
    const variant = (m?.[1] ?? dl?.[1])?.slice(4) as GithubVariant | undefined;
    if (!variant || !VARIANTS.includes(variant)) return send(404, 'application/json', JSON.stringify({ message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }));
    if (variant === 'rate-limited' && m) {
      // What api.github.com answers an address past its hourly limit.
      return send(403, 'application/json; charset=utf-8', JSON.stringify({ message: 'API rate limit exceeded for 127.0.0.1. (But here\'s the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api' }), {
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1700000000',
        'x-ratelimit-resource': 'core',
      });
    }
    const releases = releasesOf(variant);
    if (dl) {
      const rel = releases.get(dl[2]!)?.find((r) => r.tag === decodeURIComponent(dl[3]!));
      const a = rel?.assets.find((x) => x.name === decodeURIComponent(dl[4]!));
      if (!a) return send(404, 'text/plain', 'Not Found');
      objects.set(a.sha256, a);
      res.writeHead(302, { location: `${base}/objects/${variant === 'modern-no-range' ? 'no-range/' : ''}${a.sha256}`, 'content-length': 0 });
      return res.end();
    }
    const repo = m![2]!;
    const list = releases.get(repo);
    if (!list) return send(404, 'application/json', JSON.stringify({ message: 'Not Found' }));
    if (m![5] !== undefined) {
      const ref = u.searchParams.get('ref');
      const rel = list.find((r) => r.tag === ref);
      if (m![5] !== 'manifests/manifest.yml' || !rel?.pins) return send(404, 'application/json', JSON.stringify({ message: 'Not Found' }));
      if (!/application\/vnd\.github\.raw/.test(req.headers.accept ?? '')) {
        const content = Buffer.from(rel.pins).toString('base64');
        return send(200, 'application/json; charset=utf-8', JSON.stringify({ type: 'file', encoding: 'base64', name: 'manifest.yml', path: m![5], content }));
      }
      return send(200, 'application/vnd.github.raw+json', rel.pins, { etag: `"${createHash('sha1').update(rel.pins).digest('hex')}"` });
    }
    const tag = m![4] !== undefined ? decodeURIComponent(m![4]) : undefined;
    const doc = (r: FixtureRelease) => releaseJson(r, repo, variant);
    if (tag !== undefined) {
      const rel = list.find((r) => r.tag === tag);
      return rel ? send(200, 'application/json; charset=utf-8', JSON.stringify(doc(rel))) : send(404, 'application/json', JSON.stringify({ message: 'Not Found' }));
    }
    const body = JSON.stringify(list.map(doc));
    return send(200, 'application/json; charset=utf-8', body, { etag: `W/"${createHash('sha1').update(body).digest('hex')}"`, 'cache-control': 'public, max-age=60, s-maxage=60' });
  });

  interface FixtureRelease {
    tag: string;
    draft?: boolean;
    assets: Asset[];
    pins?: string;
    /** Assets GitHub lists no digest for. */
    noDigest?: boolean;
    id: number;
  }

  const releaseJson = (r: FixtureRelease, repo: string, variant: GithubVariant) => ({
    url: `${base}/api-${variant}/repos/${repo}/releases/${r.id}`,
    assets_url: `${base}/api-${variant}/repos/${repo}/releases/${r.id}/assets`,
    html_url: `https://github.com/${repo}/releases/tag/${r.tag}`,
    id: r.id,
    node_id: `RE_kwDO${r.id}`,
    tag_name: r.tag,
    target_commitish: 'master',
    name: r.tag,
    draft: !!r.draft,
    prerelease: false,
    created_at: '2023-01-10T12:00:00Z',
    published_at: r.draft ? null : '2023-01-11T12:00:00Z',
    assets: r.assets.map((a, i) => ({
      url: `${base}/api-${variant}/repos/${repo}/releases/assets/${r.id * 100 + i}`,
      id: r.id * 100 + i,
      node_id: `RA_kwDO${r.id * 100 + i}`,
      name: a.name,
      label: '',
      content_type: a.contentType,
      state: 'uploaded',
      size: a.size,
      ...(r.noDigest ? { digest: null } : { digest: `sha256:${a.sha256}` }),
      download_count: 0,
      created_at: '2023-01-11T11:00:00Z',
      updated_at: '2023-01-11T11:00:00Z',
      browser_download_url: `${base}/api-${variant}/download/${repo}/releases/download/${r.tag}/${a.name}`,
    })),
    tarball_url: `${base}/api-${variant}/repos/${repo}/tarball/${r.tag}`,
    zipball_url: `${base}/api-${variant}/repos/${repo}/zipball/${r.tag}`,
    // Release notes with a stale hash in them, as compute-runtime's have had: never to be read.
    body: `## Installation procedure on Ubuntu\n\n\`\`\`\n${r.assets.map((a) => `wget https://github.com/${repo}/releases/download/${r.tag}/${a.name}`).join('\n')}\n\`\`\`\n\n${r.assets.map((a) => `${flip(a.sha256)}  ${a.name}`).join('\n')}\n`,
  });

  const cache = new Map<GithubVariant, Map<string, FixtureRelease[]>>();
  const modernDeb = (d: ModernDeb): Asset => ({ name: d.filename, file: d.file, sha256: d.sha256, size: d.size, contentType: 'application/vnd.debian.binary-package' });
  /** Intel's releases as they are now: each sum list also names the IGC debs it pins, with a stale hash (never to be used). */
  function modernReleases(): Map<string, FixtureRelease[]> {
    const igcAssets = debs.filter((d) => d.package.startsWith('intel-igc')).map(deb);
    const withStaleIgc = (tag: string, assets: Asset[], igc: Asset[]): Asset[] => [...assets, text(`ww${tag.split('.')[1]}.sum`, sumList([...assets, ...igc.map((a) => ({ ...a, sha256: flip(a.sha256) }))]))];
    const cr = (r: { tag: string; igc: string }): FixtureRelease => {
      const own = modern.filter((d) => d.release === r.tag).map(modernDeb);
      const igc = modern.filter((d) => d.release === `v${r.igc}`).map(modernDeb);
      return { tag: r.tag, id: nextId++, assets: withStaleIgc(r.tag, own, igc), pins: manifestYml(`v${r.igc}`, `intel-gmmlib-${MODERN.gmmlib}`) };
    };
    const igcRelease = (v: string): FixtureRelease => ({ tag: `v${v}`, id: nextId++, assets: modern.filter((d) => d.release === `v${v}`).map(modernDeb) });
    return new Map([
      ['intel/compute-runtime', [cr(MODERN.newest), cr(MODERN.older), { tag: CR_TAG, id: nextId++, assets: withStaleIgc(CR_TAG, crDebs.map(deb), igcAssets), pins: manifestYml(IGC_TAG, `intel-gmmlib-${GMM_VERSION}`) }]],
      ['intel/intel-graphics-compiler', [igcRelease(MODERN.newest.igc), igcRelease(MODERN.older.igc), { tag: IGC_TAG, id: nextId++, assets: igcAssets }]],
    ]);
  }
  function releasesOf(variant: GithubVariant): Map<string, FixtureRelease[]> {
    let got = cache.get(variant);
    if (got) return got;
    if (variant.startsWith('modern')) {
      if (!opts.modern) throw new Error('the modern releases need startGithubServer({ modern: true })');
      got = modernReleases();
      cache.set(variant, got);
      return got;
    }
    const crAssets = crDebs.map(deb);
    const sumEntries = crAssets
      .filter((a) => !(variant === 'missing-sum' && a.name === MISSING_ASSET))
      .map((a) => ({ name: a.name, sha256: variant.startsWith('wrong-sum') && a.name === WRONG_ASSET ? flip(a.sha256) : a.sha256 }));
    const week = CR_TAG.split('.')[1];
    const igcRevision = variant === 'igc-by-commit' ? '7da96420a6c5be941b7710646a9f729b7760a9bc' : IGC_TAG;
    const pins = manifestYml(igcRevision, `intel-gmmlib-${GMM_VERSION}`);
    const namedFor = (tag: string): Asset[] => {
      const assets = crAssets.map((a) => ({ ...a, name: a.name.replace(CR_TAG, tag) }));
      return [...assets, text(`ww${tag.split('.')[1]}.sum`, sumList(assets))];
    };
    const newerIgc = igcDebs.map((d) => ({ ...deb(d), name: d.filename.replace(IGC_VERSION, '1.0.12812.26') }));
    got = new Map([
      [
        'intel/compute-runtime',
        [
          // A newer draft and an older release, their packages named for them and listed in their sum lists: neither is taken.
          { tag: CR_DRAFT_TAG, draft: true, id: nextId++, assets: namedFor(CR_DRAFT_TAG), pins },
          { tag: CR_TAG, id: nextId++, assets: [...crAssets, text(`ww${week}.sum`, sumList(sumEntries))], pins, noDigest: variant === 'wrong-sum-no-digest' },
          { tag: CR_OLDER_TAG, id: nextId++, assets: namedFor(CR_OLDER_TAG), pins },
        ],
      ],
      [
        'intel/intel-graphics-compiler',
        [
          { tag: IGC_NEWER_TAG, id: nextId++, assets: newerIgc },
          { tag: IGC_TAG, id: nextId++, assets: igcDebs.map(deb) },
        ],
      ],
    ]);
    cache.set(variant, got);
    return got;
  }

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    api: (variant = 'good') => `${base}/api-${variant}`,
    debs,
    requests,
    downloads,
    ranges,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
