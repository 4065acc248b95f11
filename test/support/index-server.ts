// A local package index on 127.0.0.1 for tests: conda channels, a PyPI simple index + JSON API, a GitHub release asset, with fault injection.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as pep440 from '@renovatebot/pep440';
import {
  buildFixturePackages,
  FIXTURE_MTIME_MS,
  RUNTIME_FIXTURE,
  type CondaSubdir,
  type FixtureArtifact,
  type FixturePackages,
  zstdCompress,
} from './packages.js';
import { inGpuDriverChannel } from './gpu-driver-conda.js';
import { inCondaForgeChannel } from './gpu-driver-conda-forge.js';
import { inBakedChannel } from './level-zero-baked.js';

export type FaultKind = 'truncate' | 'corrupt' | 'status-404' | 'status-500' | 'reset' | 'slow';

export interface FaultOptions {
  /** Apply to this many matching requests, then stop (default: every one until clearFaults). */
  times?: number;
  /** 'slow': wait this long before the first body byte, then send the rest over the same time again (default 2000). */
  delayMs?: number;
}

export interface RequestRecord {
  method: string;
  /** Path and query as requested. */
  path: string;
  headers: IncomingHttpHeaders;
}

export type ServedIndex = 'conda' | 'pypi' | 'github';

/** One downloadable URL: the same file listed in two channels appears twice, with two URLs. */
export interface ServedPackage extends FixtureArtifact {
  index: ServedIndex;
  url: string;
  /** conda only */
  channel?: string;
  subdir?: CondaSubdir;
  /** pypi only: the PEP 592 reason when yanked */
  yanked?: string;
}

export interface FixtureIndex {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `${url}/conda/<channel>`: what `--conda-channel` takes. */
  condaChannelUrl(channel: CondaChannelName): string;
  /** `${url}/simple`: PEP 691 JSON or PEP 503 HTML by Accept header. */
  simpleUrl: string;
  /** `${url}/html-only/simple`: PEP 503 HTML whatever is asked, with relative file links. */
  htmlOnlySimpleUrl: string;
  /** `${url}/no-metadata/simple`: PEP 503 HTML without data-core-metadata (download.pytorch.org, many mirrors); its wheels answer Range requests. */
  noMetadataSimpleUrl: string;
  /** `${url}/no-range/simple`: as no-metadata, and its wheels' server ignores Range requests (answers 200, whole). */
  noRangeSimpleUrl: string;
  /** `${url}/pypi`: the JSON API (`/pypi/<name>/json`). */
  jsonApiUrl: string;
  /** The L0 Windows SDK zip at its GitHub release path (answers with a redirect, as GitHub does). */
  sdkUrl: string;
  packages: ServedPackage[];
  fixtures: FixturePackages;
  requests: RequestRecord[];
  fault(match: string | RegExp, kind: FaultKind, opts?: FaultOptions): void;
  clearFaults(): void;
  close(): Promise<void>;
}

export type CondaChannelName = 'bookworm' | 'trixie' | 'all' | 'newer' | 'tarbz2' | 'v2' | 'gcc14' | 'gpu-driver' | 'gpu-driver-short' | 'gpu-driver-cf' | 'gpu-driver-cf-igc' | 'level-zero-baked';

export interface FixtureIndexOptions {
  fixtures?: FixturePackages;
  /** Wheels the PyPI pages do not list (a mirror that has not synced them yet). */
  leaveOut?: (a: FixtureArtifact) => boolean;
}

const L0_NAMES = new Set(['level-zero', 'level-zero-devel']);
/** conda-forge's GCC runtime packages (the runtime-library fixtures of packages.ts). */
const RUNTIME_NAMES = new Set(['libstdcxx', 'libgcc', 'libgomp', '_openmp_mutex', '_libgcc_mutex']);
const UR = 'intel-cmplr-lib-ur';
/** What intel-cmplr-lib-ur depends on in a conda channel (its runtime, UMF, and UMF's hwloc). */
const UR_DEPENDENCIES = new Set(['intel-cmplr-lib-rt', 'umf', 'libhwloc']);
const SUBDIRS: CondaSubdir[] = ['linux-64', 'win-64', 'noarch'];
const PYPI_JSON = 'application/vnd.pypi.simple.v1+json';
const PYPI_HTML = 'application/vnd.pypi.simple.v1+html';

interface ChannelDef {
  name: CondaChannelName;
  select: (a: FixtureArtifact, f: FixturePackages) => boolean;
  repodataVersion: 1 | 2;
  /** Old-style channel: no `packages.conda` key, no `repodata.json.zst`. */
  legacy?: boolean;
}

const isConda = (a: FixtureArtifact): boolean => a.format === 'conda' || a.format === 'tar.bz2';
const bn = (a: FixtureArtifact): number => a.conda?.build_number ?? -1;

/** What each channel lists; packages.ts builds exactly the artifacts these need. */
const CHANNELS: ChannelDef[] = [
  {
    name: 'bookworm',
    repodataVersion: 1,
    select: (a, f) =>
      isConda(a) &&
      ((L0_NAMES.has(a.name) && a.version === f.l0Versions.bookworm) ||
        (a.name === UR && a.version === f.urVersions.older) ||
        UR_DEPENDENCIES.has(a.name)),
  },
  {
    name: 'trixie',
    repodataVersion: 1,
    select: (a, f) => a.format === 'conda' && L0_NAMES.has(a.name) && a.version === f.l0Versions.trixie && bn(a) === 0,
  },
  {
    name: 'all',
    repodataVersion: 1,
    select: (a, f) =>
      a.format === 'conda' && ((L0_NAMES.has(a.name) && a.version !== RUNTIME_FIXTURE.l0 && a.version !== f.l0Versions.newer) || a.name === UR || UR_DEPENDENCIES.has(a.name)),
  },
  {
    // A Level Zero >= 1.25: what UR 2026's adapters need.
    name: 'newer',
    repodataVersion: 1,
    select: (a, f) => a.format === 'conda' && L0_NAMES.has(a.name) && a.version === f.l0Versions.newer,
  },
  {
    name: 'tarbz2',
    repodataVersion: 1,
    legacy: true,
    select: (a, f) => a.format === 'tar.bz2' && L0_NAMES.has(a.name) && a.version === f.l0Versions.trixie && bn(a) === 0,
  },
  {
    // conda-forge's newest Level Zero (built with GCC 14) beside the GCC 14 runtime, and Debian 12's real loader.
    name: 'gcc14',
    repodataVersion: 1,
    select: (a, f) =>
      isConda(a) &&
      (RUNTIME_NAMES.has(a.name) ||
        (L0_NAMES.has(a.name) && a.version === RUNTIME_FIXTURE.l0) ||
        (L0_NAMES.has(a.name) && a.version === f.l0Versions.bookworm && a.format === 'conda')),
  },
  // The GPU driver in conda-forge's shape (gpu-driver-conda.ts, when the fixtures given include it) and the GCC 14 runtime it depends on.
  ...(['gpu-driver', 'gpu-driver-short'] as const).map(
    (name): ChannelDef => ({ name, repodataVersion: 1, select: (a) => isConda(a) && (RUNTIME_NAMES.has(a.name) || inGpuDriverChannel(a, name)) }),
  ),
  // conda-forge's intel-compute-runtime as its recipe builds it (gpu-driver-conda-forge.ts: sid's files), with the GCC 14 runtime.
  ...(['gpu-driver-cf', 'gpu-driver-cf-igc'] as const).map(
    (name): ChannelDef => ({ name, repodataVersion: 1, select: (a) => isConda(a) && (RUNTIME_NAMES.has(a.name) || inCondaForgeChannel(a, name)) }),
  ),
  // conda-forge's level-zero with its build prefix compiled into the loader (level-zero-baked.ts), with the GCC 14 runtime.
  { name: 'level-zero-baked', repodataVersion: 1, select: (a) => isConda(a) && (RUNTIME_NAMES.has(a.name) || inBakedChannel(a)) },
  {
    name: 'v2',
    repodataVersion: 2,
    select: (a, f) => a.format === 'conda' && L0_NAMES.has(a.name) && a.version === f.l0Versions.trixie && bn(a) === 0,
  },
];

/** PEP 503 normalisation. */
export const normalizeProjectName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '-');

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The Requires-Dist lines of a METADATA file; null when none, as PyPI's JSON API answers. */
const requiresDistOf = (metadata: string): string[] | null => {
  const lines = [...metadata.split('\n\n')[0]!.matchAll(/^Requires-Dist: (.*)$/gm)].map((m) => m[1]!);
  return lines.length ? lines : null;
};

const iso = (ms: number): string => new Date(ms).toISOString();

/** Parses an Accept header into media type -> q. */
function acceptQ(header: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [type, ...params] = part.trim().split(';').map((s) => s.trim());
    if (!type) continue;
    const q = params.find((p) => p.startsWith('q='));
    out.set(type.toLowerCase(), q ? Number(q.slice(2)) : 1);
  }
  return out;
}

type Resource =
  | { kind: 'body'; type: string; load: () => Promise<Buffer>; etag?: string; ignoresRange?: true }
  | { kind: 'redirect'; status: 301 | 302; location: string }
  | { kind: 'dynamic'; handle: (req: IncomingMessage) => Promise<{ status?: number; type: string; body: Buffer; vary?: string }> };

interface Fault {
  match: string | RegExp;
  kind: FaultKind;
  remaining: number;
  delayMs: number;
}

export async function startFixtureIndex(opts: FixtureIndexOptions = {}): Promise<FixtureIndex> {
  const fixtures = opts.fixtures ?? (await buildFixturePackages());
  const routes = new Map<string, Resource>();
  const packages: ServedPackage[] = [];
  const requests: RequestRecord[] = [];
  let faults: Fault[] = [];
  const sockets = new Set<Socket>();

  const fileCache = new Map<string, Promise<Buffer>>();
  const loadFile = (path: string): Promise<Buffer> => {
    let p = fileCache.get(path);
    if (!p) fileCache.set(path, (p = readFile(path)));
    return p;
  };

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', resolvePromise));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const serveFile = (path: string, a: FixtureArtifact, type: string): void => {
    routes.set(path, { kind: 'body', type, load: () => loadFile(a.path), etag: `"${a.sha256.slice(0, 32)}"` });
  };

  // --- conda channels -----------------------------------------------------------------------------------
  for (const ch of CHANNELS) {
    for (const subdir of SUBDIRS) {
      const listed = fixtures.artifacts.filter((a) => a.conda?.subdir === subdir && ch.select(a, fixtures));
      const repodata: Record<string, unknown> = { info: { subdir } };
      let fileBase = `${url}/conda/${ch.name}/${subdir}/`;
      if (ch.repodataVersion === 2) {
        // CEP 15: base_url may be absolute or relative to repodata.json; one subdir uses each form.
        const mirror = `/mirror/${ch.name}/${subdir}/`;
        (repodata.info as Record<string, string>).base_url = subdir === 'win-64' ? `../../..${mirror}` : `${url}${mirror}`;
        fileBase = `${url}${mirror}`;
      }
      const packagesTarBz2: Record<string, unknown> = {};
      const packagesConda: Record<string, unknown> = {};
      for (const a of listed) {
        const c = a.conda!;
        const record = {
          build: c.build,
          build_number: c.build_number,
          ...(c.constrains.length ? { constrains: c.constrains } : {}),
          depends: c.depends,
          license: c.license,
          md5: a.md5,
          name: c.name,
          sha256: a.sha256,
          size: a.size,
          subdir: c.subdir,
          timestamp: c.timestamp,
          version: c.version,
        };
        (a.format === 'conda' ? packagesConda : packagesTarBz2)[a.filename] = record;
        const fileUrl = fileBase + a.filename;
        serveFile(new URL(fileUrl).pathname, a, 'application/octet-stream');
        packages.push({ ...a, index: 'conda', url: fileUrl, channel: ch.name, subdir });
      }
      repodata.packages = packagesTarBz2;
      if (!ch.legacy) repodata['packages.conda'] = packagesConda;
      repodata.removed = [];
      repodata.repodata_version = ch.repodataVersion;
      const body = Buffer.from(JSON.stringify(repodata, null, 1));
      const base = `/conda/${ch.name}/${subdir}/repodata.json`;
      const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
      routes.set(base, { kind: 'body', type: 'application/json', load: async () => body, etag });
      if (!ch.legacy) {
        let compressed: Promise<Buffer> | undefined;
        routes.set(`${base}.zst`, {
          kind: 'body',
          type: 'application/zstd',
          load: () => (compressed ??= zstdCompress(body)),
          etag: etag.replace(/"$/, 'z"'),
        });
      }
    }
  }

  // --- PyPI -----------------------------------------------------------------------------------------------
  const wheels = fixtures.artifacts.filter((a) => a.format === 'wheel' && !opts.leaveOut?.(a));
  const projects = new Map<string, FixtureArtifact[]>();
  for (const w of wheels) {
    const key = normalizeProjectName(w.name);
    projects.set(key, [...(projects.get(key) ?? []), w]);
  }
  const uploadTime = (a: FixtureArtifact): number => {
    const versions = [...new Set(projects.get(normalizeProjectName(a.name))!.map((w) => w.version))].sort(pep440.compare);
    return FIXTURE_MTIME_MS + versions.indexOf(a.version) * 86_400_000;
  };
  const fileUrl = (a: FixtureArtifact): string => `${url}/files/${normalizeProjectName(a.name)}/${a.filename}`;
  for (const w of wheels) {
    const path = new URL(fileUrl(w)).pathname;
    serveFile(path, w, 'application/octet-stream');
    const meta = Buffer.from(w.wheel!.metadata);
    routes.set(`${path}.metadata`, { kind: 'body', type: 'application/octet-stream', load: async () => meta });
    routes.set(`/no-range${path}`, { kind: 'body', type: 'application/octet-stream', load: () => loadFile(w.path), ignoresRange: true });
    packages.push({ ...w, index: 'pypi', url: fileUrl(w), ...(w.wheel?.yanked ? { yanked: w.wheel.yanked } : {}) });
  }

  const simpleJson = (name: string, files: FixtureArtifact[], relativeTo?: string): Buffer =>
    Buffer.from(
      JSON.stringify({
        meta: { 'api-version': '1.1' },
        name,
        versions: [...new Set(files.map((f) => f.version))].sort(pep440.compare),
        files: files.map((f) => ({
          filename: f.filename,
          url: relativeTo ? relativeUrl(fileUrl(f), relativeTo) : fileUrl(f),
          hashes: { sha256: f.sha256 },
          'requires-python': f.wheel?.requiresPython ?? null,
          yanked: f.wheel?.yanked ?? false,
          size: f.size,
          'upload-time': iso(uploadTime(f)),
          'core-metadata': { sha256: f.wheel!.metadataSha256 },
          'data-dist-info-metadata': { sha256: f.wheel!.metadataSha256 },
        })),
      }),
    );

  /** `bare`: links without metadata attributes, to the files at `filesAt` (`/no-range`: a server that ignores Range). */
  const simpleHtml = (name: string, files: FixtureArtifact[], relativeTo?: string, bare?: { filesAt: string }): Buffer => {
    const links = files.map((f) => {
      const target = bare ? fileUrl(f).replace(url, `${url}${bare.filesAt}`) : fileUrl(f);
      const href = `${relativeTo ? relativeUrl(target, relativeTo) : target}#sha256=${f.sha256}`;
      const attrs = [`href="${escapeHtml(href)}"`];
      if (f.wheel?.requiresPython) attrs.push(`data-requires-python="${escapeHtml(f.wheel.requiresPython)}"`);
      if (!bare) attrs.push(`data-dist-info-metadata="sha256=${f.wheel!.metadataSha256}"`);
      if (!bare) attrs.push(`data-core-metadata="sha256=${f.wheel!.metadataSha256}"`);
      if (f.wheel?.yanked) attrs.push(`data-yanked="${escapeHtml(f.wheel.yanked)}"`);
      return `    <a ${attrs.join(' ')}>${escapeHtml(f.filename)}</a><br />`;
    });
    return Buffer.from(
      [
        '<!DOCTYPE html>',
        '<html>',
        '  <head>',
        '    <meta name="pypi:repository-version" content="1.1">',
        `    <title>Links for ${escapeHtml(name)}</title>`,
        '  </head>',
        '  <body>',
        `    <h1>Links for ${escapeHtml(name)}</h1>`,
        ...links,
        '  </body>',
        '</html>',
        '',
      ].join('\n'),
    );
  };

  const rootJson = Buffer.from(
    JSON.stringify({ meta: { 'api-version': '1.1' }, projects: [...projects.keys()].map((name) => ({ name })) }),
  );
  const rootHtml = (relative: boolean): Buffer =>
    Buffer.from(
      '<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" content="1.1">\n    <title>Simple index</title>\n  </head>\n  <body>\n' +
        [...projects.keys()]
          .map((n) => `    <a href="${relative ? `${n}/` : `/simple/${n}/`}">${escapeHtml(n)}</a>`)
          .join('\n') +
        '\n  </body>\n</html>\n',
    );

  /** Picks JSON or HTML as PyPI does; undefined means 406. */
  const negotiate = (req: IncomingMessage): 'json' | { type: string } | undefined => {
    if (!req.headers.accept) return { type: 'text/html; charset=utf-8' };
    const q = acceptQ(req.headers.accept);
    const any = q.get('*/*') ?? 0;
    const json = Math.max(q.get(PYPI_JSON) ?? 0, q.get('application/vnd.pypi.simple.latest+json') ?? 0);
    const v1html = Math.max(q.get(PYPI_HTML) ?? 0, q.get('application/vnd.pypi.simple.latest+html') ?? 0);
    const text = Math.max(q.get('text/html') ?? 0, any);
    if (json > 0 && json >= v1html && json >= text) return 'json';
    if (v1html > 0 && v1html >= text) return { type: PYPI_HTML };
    if (text > 0) return { type: 'text/html; charset=utf-8' };
    return undefined;
  };

  routes.set('/simple/', {
    kind: 'dynamic',
    handle: async (req) => {
      const pick = negotiate(req);
      if (!pick) return { status: 406, type: 'text/plain', body: Buffer.from('406 Not Acceptable\n'), vary: 'Accept' };
      return pick === 'json'
        ? { type: PYPI_JSON, body: rootJson, vary: 'Accept' }
        : { type: pick.type, body: rootHtml(false), vary: 'Accept' };
    },
  });
  routes.set('/html-only/simple/', { kind: 'body', type: 'text/html; charset=utf-8', load: async () => rootHtml(true) });
  for (const [name, files] of projects) {
    const page = `/simple/${name}/`;
    routes.set(page, {
      kind: 'dynamic',
      handle: async (req) => {
        const pick = negotiate(req);
        if (!pick) return { status: 406, type: 'text/plain', body: Buffer.from('406 Not Acceptable\n'), vary: 'Accept' };
        return pick === 'json'
          ? { type: PYPI_JSON, body: simpleJson(name, files), vary: 'Accept' }
          : { type: pick.type, body: simpleHtml(name, files), vary: 'Accept' };
      },
    });
    const htmlPage = `/html-only/simple/${name}/`;
    const html = simpleHtml(name, files, `${url}${htmlPage}`);
    routes.set(htmlPage, { kind: 'body', type: 'text/html; charset=utf-8', load: async () => html });
    for (const bare of ['no-metadata', 'no-range']) {
      const page = simpleHtml(name, files, undefined, { filesAt: bare === 'no-range' ? '/no-range' : '' });
      routes.set(`/${bare}/simple/${name}/`, { kind: 'body', type: 'text/html; charset=utf-8', load: async () => page });
    }

    // JSON API: the project and each release.
    const versions = [...new Set(files.map((f) => f.version))].sort(pep440.compare);
    const latest = [...versions].reverse().find((v) => files.some((f) => f.version === v && !f.wheel?.yanked)) ?? versions.at(-1)!;
    const fileJson = (f: FixtureArtifact): Record<string, unknown> => ({
      comment_text: '',
      digests: { md5: f.md5, sha256: f.sha256 },
      downloads: -1,
      filename: f.filename,
      has_sig: false,
      md5_digest: f.md5,
      packagetype: 'bdist_wheel',
      python_version: f.filename.split('-')[2] ?? 'py3',
      requires_python: f.wheel?.requiresPython ?? null,
      size: f.size,
      upload_time: iso(uploadTime(f)).slice(0, 19),
      upload_time_iso_8601: iso(uploadTime(f)).replace(/\.\d+Z$/, '.000000Z'),
      url: fileUrl(f),
      yanked: Boolean(f.wheel?.yanked),
      yanked_reason: f.wheel?.yanked ?? null,
    });
    const info = (version: string): Record<string, unknown> => {
      const f = files.find((x) => x.version === version)!;
      const summary = /^Summary: (.*)$/m.exec(f.wheel!.metadata)?.[1] ?? '';
      return {
        name: files[0]!.name,
        version,
        summary,
        license: 'MIT',
        requires_python: f.wheel?.requiresPython ?? '',
        requires_dist: requiresDistOf(f.wheel!.metadata),
        yanked: Boolean(f.wheel?.yanked),
        yanked_reason: f.wheel?.yanked ?? null,
        package_url: `${url}/project/${name}/`,
        project_url: `${url}/project/${name}/`,
        release_url: `${url}/project/${name}/${version}/`,
      };
    };
    const releases = Object.fromEntries(versions.map((v) => [v, files.filter((f) => f.version === v).map(fileJson)]));
    const projectJson = Buffer.from(
      JSON.stringify({
        info: info(latest),
        last_serial: 1,
        releases,
        urls: files.filter((f) => f.version === latest).map(fileJson),
        vulnerabilities: [],
      }),
    );
    routes.set(`/pypi/${name}/json`, { kind: 'body', type: 'application/json', load: async () => projectJson });
    for (const v of versions) {
      const body = Buffer.from(
        JSON.stringify({ info: info(v), last_serial: 1, urls: files.filter((f) => f.version === v).map(fileJson), vulnerabilities: [] }),
      );
      routes.set(`/pypi/${name}/${v}/json`, { kind: 'body', type: 'application/json', load: async () => body });
    }
  }

  // --- GitHub release asset ---------------------------------------------------------------------------------
  const sdk = fixtures.artifacts.find((a) => a.name === 'level-zero-win-sdk')!;
  const sdkPath = `/github/oneapi-src/level-zero/releases/download/v${sdk.version}/${sdk.filename}`;
  const objectPath = `/github-objects/${sdk.sha256.slice(0, 16)}/${sdk.filename}`;
  routes.set(sdkPath, { kind: 'redirect', status: 302, location: `${url}${objectPath}` });
  serveFile(objectPath, sdk, 'application/octet-stream');
  packages.push({ ...sdk, index: 'github', url: `${url}${sdkPath}` });

  // --- request handling -------------------------------------------------------------------------------------
  function takeFault(path: string, hasBody: boolean): Fault | undefined {
    for (const f of faults) {
      const hit = typeof f.match === 'string' ? f.match === path || f.match === path.split('?')[0] : f.match.test(path);
      if (!hit || f.remaining <= 0) continue;
      const bodyOnly = f.kind === 'truncate' || f.kind === 'corrupt' || f.kind === 'slow';
      if (bodyOnly && !hasBody) continue;
      f.remaining--;
      return f;
    }
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path: raw, headers: req.headers });
    try {
      const pathname = decodeURIComponent(new URL(raw, url).pathname);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        const f = takeFault(raw, false);
        if (f) return applyStatusFault(f, req, res);
        return send(res, 405, 'text/plain', Buffer.from('405 Method Not Allowed\n'), { Allow: 'GET, HEAD' });
      }
      const resource = routes.get(pathname) ?? simpleRedirect(pathname);
      const f = takeFault(raw, req.method === 'GET' && (resource?.kind === 'body' || resource?.kind === 'dynamic'));
      if (f && (f.kind === 'reset' || f.kind === 'status-404' || f.kind === 'status-500')) return applyStatusFault(f, req, res);
      if (!resource) return send(res, 404, 'text/plain', Buffer.from(`404 Not Found: ${pathname}\n`));
      if (resource.kind === 'redirect') {
        res.writeHead(resource.status, { Location: resource.location, 'Content-Length': 0 });
        return void res.end();
      }
      let status = 200;
      let type: string;
      let body: Buffer;
      const headers: Record<string, string> = {};
      if (resource.kind === 'dynamic') {
        const out = await resource.handle(req);
        status = out.status ?? 200;
        type = out.type;
        body = out.body;
        if (out.vary) headers.Vary = out.vary;
      } else {
        type = resource.type;
        body = await resource.load();
        if (resource.etag) {
          headers.ETag = resource.etag;
          if (req.headers['if-none-match'] === resource.etag && !f) {
            res.writeHead(304, { ETag: resource.etag });
            return void res.end();
          }
        }
        if (!resource.ignoresRange) headers['Accept-Ranges'] = 'bytes';
        const range = resource.ignoresRange ? null : /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
        if (range && status === 200 && (range[1] || range[2])) {
          // `bytes=-N` is the last N bytes (all of a shorter file).
          const suffix = !range[1];
          const start = suffix ? Math.max(0, body.length - Number(range[2])) : Number(range[1]);
          const end = range[2] && !suffix ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
          if (start >= body.length || start > end) {
            return send(res, 416, 'text/plain', Buffer.alloc(0), { 'Content-Range': `bytes */${body.length}` });
          }
          headers['Content-Range'] = `bytes ${start}-${end}/${body.length}`;
          body = body.subarray(start, end + 1);
          status = 206;
        }
      }
      if (req.method === 'HEAD') {
        res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': body.length });
        return void res.end();
      }
      if (f) return applyBodyFault(f, res, status, type, body, headers);
      return send(res, status, type, body, headers);
    } catch (err) {
      if (!res.headersSent) send(res, 500, 'text/plain', Buffer.from(`500 fixture server error: ${String(err)}\n`));
      else res.destroy();
    }
  }

  /** PyPI redirects un-normalised project names and missing trailing slashes to the canonical URL. */
  function simpleRedirect(pathname: string): Resource | undefined {
    if (routes.has(`${pathname}/`)) return { kind: 'redirect', status: 301, location: `${url}${pathname}/` };
    const m = /^(\/(?:html-only\/|no-metadata\/|no-range\/)?simple)\/([^/]+)\/?$/.exec(pathname);
    if (!m) return undefined;
    const canonical = `${m[1]}/${normalizeProjectName(m[2]!)}/`;
    if (canonical === pathname || !routes.has(canonical)) return undefined;
    return { kind: 'redirect', status: 301, location: `${url}${canonical}` };
  }

  function applyStatusFault(f: Fault, req: IncomingMessage, res: ServerResponse): void {
    if (f.kind === 'reset') {
      const s = req.socket as Socket & { resetAndDestroy?: () => void };
      if (s.resetAndDestroy) s.resetAndDestroy();
      else s.destroy();
      return;
    }
    const status = f.kind === 'status-404' ? 404 : 500;
    send(res, status, 'text/plain', Buffer.from(`${status} injected by test fault\n`));
  }

  function applyBodyFault(
    f: Fault,
    res: ServerResponse,
    status: number,
    type: string,
    body: Buffer,
    headers: Record<string, string>,
  ): void {
    res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': body.length });
    if (f.kind === 'corrupt') {
      const bad = Buffer.from(body);
      const at = Math.floor(bad.length / 2);
      for (let i = at; i < Math.min(at + 16, bad.length); i++) bad[i] = bad[i]! ^ 0xff;
      res.end(bad);
      return;
    }
    if (f.kind === 'truncate') {
      // Announce the whole length, send half, then drop the connection: what a dropped download looks like.
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
      return;
    }
    // slow: silence for delayMs, then the body in 16 pieces over delayMs more.
    const pieces = 16;
    const step = Math.ceil(body.length / pieces);
    const timers: NodeJS.Timeout[] = [];
    res.on('close', () => timers.forEach(clearTimeout));
    for (let i = 0; i < pieces; i++) {
      timers.push(
        setTimeout(
          () => {
            const chunk = body.subarray(i * step, (i + 1) * step);
            if (i === pieces - 1) res.end(chunk);
            else res.write(chunk);
          },
          f.delayMs + (i * f.delayMs) / pieces,
        ),
      );
    }
    res.flushHeaders();
  }

  function send(res: ServerResponse, status: number, type: string, body: Buffer, headers: Record<string, string> = {}): void {
    res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': body.length });
    res.end(body);
  }

  return {
    url,
    condaChannelUrl: (channel) => `${url}/conda/${channel}`,
    simpleUrl: `${url}/simple`,
    htmlOnlySimpleUrl: `${url}/html-only/simple`,
    noMetadataSimpleUrl: `${url}/no-metadata/simple`,
    noRangeSimpleUrl: `${url}/no-range/simple`,
    jsonApiUrl: `${url}/pypi`,
    sdkUrl: `${url}${sdkPath}`,
    packages,
    fixtures,
    requests,
    fault(match, kind, o = {}) {
      faults.push({ match, kind, remaining: o.times ?? Infinity, delayMs: o.delayMs ?? 2000 });
    },
    clearFaults() {
      faults = [];
    },
    close: () =>
      new Promise<void>((resolvePromise, reject) => {
        server.close((err) => (err ? reject(err) : resolvePromise()));
        for (const s of sockets) s.destroy();
      }),
  };
}

/** A relative reference from `base` (a directory URL) to `target` on the same origin, as mirrors write them. */
export function relativeUrl(target: string, base: string): string {
  const t = new URL(target);
  const b = new URL(base);
  const from = b.pathname.split('/').slice(1, -1);
  const to = t.pathname.split('/').slice(1);
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  return [...Array<string>(from.length - common).fill('..'), ...to.slice(common)].join('/');
}
