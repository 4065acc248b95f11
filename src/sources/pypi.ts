// PyPI-style indexes: PEP 691 JSON and PEP 503 HTML simple pages, and the /pypi/<name>/json API; wheel tag choice.
import { XpuError } from '../errors.js';
import type { Host } from '../host/types.js';
import { layoutFor } from '../host/index.js';
import type { PypiSourceSpec } from '../manifest/schema.js';
import type { Http } from '../net/http.js';
import { gatewayFor } from './gateway.js';
import { meetsAll, type Constraint } from './order.js';
import { comparePep440, isPep440PreRelease, loadPep440 } from './pep440.js';
import { inRange } from './version.js';
import { NotAvailable, type Resolution, type SourceContext } from './types.js';

export const DEFAULT_INDEX_URL = 'https://pypi.org/simple';

export interface IndexFile {
  filename: string;
  url: string;
  sha256?: string;
  size?: number;
  yanked: boolean;
  requiresPython?: string;
  /** PEP 658: the index serves the wheel's METADATA at `<url>.metadata`; its sha256 when the index gives one. */
  coreMetadata?: string | true;
}

export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };
const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_, e: string) => ENTITIES[e] ?? _);

function fileFromUrl(href: string, pageUrl: string): Pick<IndexFile, 'url' | 'sha256' | 'filename'> {
  const abs = new URL(href, pageUrl);
  const frag = /^sha256=([0-9a-f]{64})$/i.exec(abs.hash.slice(1));
  abs.hash = '';
  const filename = decodeURIComponent(abs.pathname.slice(abs.pathname.lastIndexOf('/') + 1));
  return { url: abs.href, sha256: frag?.[1]?.toLowerCase(), filename };
}

/** PEP 503 HTML: anchors with #sha256= fragments and data-* attributes. */
export function parseSimpleHtml(html: string, pageUrl: string): IndexFile[] {
  const out: IndexFile[] = [];
  for (const m of html.matchAll(/<a\s([^>]*)>([^<]*)<\/a>/gi)) {
    const attrs: Record<string, string> = {};
    for (const a of m[1]!.matchAll(/([\w-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
      attrs[a[1]!.toLowerCase()] = unescape(a[3] ?? a[4] ?? a[5] ?? '');
    }
    if (!attrs.href) continue;
    const f = fileFromUrl(attrs.href, pageUrl);
    out.push({
      ...f,
      filename: unescape(m[2]!.trim()) || f.filename,
      yanked: 'data-yanked' in attrs,
      requiresPython: attrs['data-requires-python'],
      ...coreMetadataOf(attrs['data-core-metadata'] ?? attrs['data-dist-info-metadata']),
    });
  }
  return out;
}

interface Pep691 {
  meta?: { 'api-version'?: string };
  files?: {
    filename: string;
    url: string;
    hashes?: Record<string, string>;
    yanked?: boolean | string;
    size?: number;
    'requires-python'?: string;
    'core-metadata'?: boolean | Record<string, string>;
    'data-dist-info-metadata'?: boolean | Record<string, string>;
    'dist-info-metadata'?: boolean | Record<string, string>;
  }[];
}

/**
 * PEP 658 / 714: `true`, `{sha256: ...}` (JSON) or `"true"`, `"sha256=..."` (HTML); absent or false: none. JSON pages
 * name it `core-metadata`; PyPI also keeps `data-dist-info-metadata`, and `dist-info-metadata` is PEP 691's first name.
 */
function coreMetadataOf(v: boolean | string | Record<string, string> | undefined): { coreMetadata?: string | true } {
  if (v === undefined || v === false || v === 'false') return {};
  const sha = typeof v === 'string' ? /^sha256=([0-9a-f]{64})$/i.exec(v)?.[1] : typeof v === 'object' ? v.sha256 : undefined;
  return { coreMetadata: sha ? sha.toLowerCase() : true };
}

export function parseSimpleJson(doc: Pep691, pageUrl: string): IndexFile[] {
  if (!doc || !Array.isArray(doc.files)) {
    throw new XpuError('BAD_INDEX', `${pageUrl} is not a PEP 691 project page (no "files")`, { details: { url: pageUrl } });
  }
  return doc.files.map((f) => ({
    filename: f.filename,
    url: new URL(f.url, pageUrl).href,
    sha256: f.hashes?.sha256?.toLowerCase(),
    size: f.size,
    yanked: f.yanked !== undefined && f.yanked !== false,
    requiresPython: f['requires-python'],
    ...coreMetadataOf(f['core-metadata'] ?? f['data-dist-info-metadata'] ?? f['dist-info-metadata']),
  }));
}

interface JsonApi {
  releases?: Record<string, { filename: string; url: string; digests?: { sha256?: string }; size?: number; yanked?: boolean; requires_python?: string | null }[]>;
}

export function parseJsonApi(doc: JsonApi, pageUrl: string): IndexFile[] {
  if (!doc || typeof doc.releases !== 'object') {
    throw new XpuError('BAD_INDEX', `${pageUrl} is not a PyPI JSON API document (no "releases")`, { details: { url: pageUrl } });
  }
  return Object.values(doc.releases).flat().map((f) => ({
    filename: f.filename,
    url: new URL(f.url, pageUrl).href,
    sha256: f.digests?.sha256?.toLowerCase(),
    size: f.size,
    yanked: !!f.yanked,
    requiresPython: f.requires_python ?? undefined,
  }));
}

export interface WheelName {
  name: string;
  version: string;
  pythonTags: string[];
  abiTags: string[];
  platformTags: string[];
}

export function parseWheelFilename(filename: string): WheelName | undefined {
  if (!filename.endsWith('.whl')) return undefined;
  const parts = filename.slice(0, -4).split('-');
  if (parts.length !== 5 && parts.length !== 6) return undefined;
  const [name, version] = parts;
  const [py, abi, plat] = parts.slice(-3);
  return { name: name!, version: version!, pythonTags: py!.split('.'), abiTags: abi!.split('.'), platformTags: plat!.split('.') };
}

/** How well a platform tag fits the host: higher is better, undefined means it cannot be installed. */
export function platformTagScore(tag: string, host: Host): number | undefined {
  return tag === 'any' ? 0 : layoutFor(host.platform).wheelTagScore(tag, host.glibc);
}

export function selectWheel(files: IndexFile[], project: string, host: Host, range?: string, constraints: readonly Constraint[] = []): IndexFile | undefined {
  const want = normalizeName(project);
  let best: { f: IndexFile; version: string; score: number } | undefined;
  for (const f of files) {
    if (f.yanked || !f.sha256) continue;
    const w = parseWheelFilename(f.filename);
    if (!w || normalizeName(w.name) !== want || isPep440PreRelease(w.version) || !inRange('pypi', w.version, range) || !meetsAll(w.version, constraints, 'pep440')) continue;
    const scores = w.platformTags.map((t) => platformTagScore(t, host)).filter((s): s is number => s !== undefined);
    if (!scores.length) continue;
    const score = Math.max(...scores);
    if (!best || comparePep440(w.version, best.version) > 0 || (w.version === best.version && score > best.score)) {
      best = { f, version: w.version, score };
    }
  }
  return best?.f;
}

/** The request for a project's page: `/pypi` URLs use the JSON API, anything else the simple API (JSON or HTML). */
export function projectPageRequest(indexUrl: string, project: string): { url: string; accept: string; jsonApi: boolean } {
  const base = indexUrl.replace(/\/+$/, '');
  const name = normalizeName(project);
  if (/\/pypi$/.test(base)) return { url: `${base}/${name}/json`, accept: 'application/json', jsonApi: true };
  return { url: `${base}/${name}/`, accept: 'application/vnd.pypi.simple.v1+json, text/html;q=0.1', jsonApi: false };
}

/** A project page's files, by the format the server answered in. */
export function parseProjectPage(body: string, url: string, contentType: string, jsonApi: boolean): IndexFile[] {
  if (!jsonApi && !/application\/vnd\.pypi\.simple\.v1\+json/.test(contentType)) return parseSimpleHtml(body, url);
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (e) {
    throw new XpuError('BAD_INDEX', `${url} sent invalid JSON`, {
      cause: e,
      details: { url },
      hints: ['check that the URL points at the index itself (not a web page or a login portal)'],
    });
  }
  return jsonApi ? parseJsonApi(doc as JsonApi, url) : parseSimpleJson(doc as Pep691, url);
}

/** Project files from an index, asked now (the gateway's `pypiProjectFiles` keeps them for the run and across runs). */
export async function listProjectFiles(http: Http, indexUrl: string, project: string): Promise<IndexFile[]> {
  const { url, accept, jsonApi } = projectPageRequest(indexUrl, project);
  const res = await http.getText(url, { headers: { accept } });
  return parseProjectPage(res.body, url, res.contentType, jsonApi);
}

export async function resolvePypi(spec: PypiSourceSpec, ctx: SourceContext): Promise<Resolution> {
  await loadPep440();
  const indexUrl = ctx.indexUrl ?? DEFAULT_INDEX_URL;
  const archives = [];
  for (const project of spec.packages) {
    let files: IndexFile[];
    try {
      files = await (ctx.gateway ?? gatewayFor(ctx.deps)).pypiProjectFiles(indexUrl, project);
    } catch (e) {
      if (e instanceof XpuError && e.code === 'NOT_FOUND') throw new NotAvailable(`${project} not found on ${indexUrl}`);
      throw e;
    }
    const f = selectWheel(files, project, ctx.host, spec.versions, ctx.constraints);
    const unconstrained = !f && ctx.constraints?.length ? selectWheel(files, project, ctx.host, spec.versions) : undefined;
    if (unconstrained) {
      const v = parseWheelFilename(unconstrained.filename)!.version;
      throw new NotAvailable(`newest ${project} wheel on ${indexUrl} is ${v}, which does not meet ${ctx.constraints!.map((c) => c.text).join(', ')}`);
    }
    if (!f) {
      const noHash = files.some((x) => !x.sha256 && !x.yanked);
      throw new NotAvailable(
        `no ${project} wheel for ${ctx.host.platform}${ctx.host.glibc ? ` (glibc ${ctx.host.glibc})` : ''} on ${indexUrl}` +
          (noHash ? ' (files without sha256 are never used)' : ''),
      );
    }
    const w = parseWheelFilename(f.filename)!;
    archives.push({ package: project, version: w.version, filename: f.filename, url: f.url, sha256: f.sha256!, size: f.size, format: 'wheel' as const, map: spec.map });
  }
  return { source: 'pypi', origin: indexUrl, version: archives[0]!.version, archives };
}
