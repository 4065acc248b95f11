// PyPI's index formats: PEP 691 JSON and PEP 503 HTML simple pages and the /pypi/<name>/json API, read into the files
// of a project. Imports nothing of the index readers, so the gateway and the PyPI source both read it.
import { fieldsWithoutControls } from '../base/control-chars.js';
import { XpuError } from '../base/errors.js';
import { normalizeName } from '../versions/pep508.js';
import { urlFromIndex } from '../net/url-rule.js';

export interface IndexFile {
  filename: string;
  url: string;
  sha256?: string;
  size?: number;
  yanked: boolean;
  /** PEP 592: why it was yanked, when the index says. */
  yankedReason?: string;
  requiresPython?: string;
  /** PEP 658: the index serves the wheel's METADATA at `<url>.metadata`; its sha256 when the index gives one. */
  coreMetadata?: string | true;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };
const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_, e: string) => ENTITIES[e] ?? _);

function fileFromUrl(href: string, pageUrl: string, field: string): Pick<IndexFile, 'url' | 'sha256' | 'filename'> {
  const abs = new URL(urlFromIndex(href, pageUrl, field));
  const frag = /^sha256=([0-9a-f]{64})$/i.exec(abs.hash.slice(1));
  abs.hash = '';
  const filename = decodeURIComponent(abs.pathname.slice(abs.pathname.lastIndexOf('/') + 1));
  return { url: abs.href, sha256: frag?.[1]?.toLowerCase(), filename };
}

/** PEP 503 HTML: anchors with #sha256= fragments and data-* attributes. */
export function parseSimpleHtml(html: string, pageUrl: string): IndexFile[] {
  const out: IndexFile[] = [];
  let n = 0;
  for (const m of html.matchAll(/<a\s([^>]*)>([^<]*)<\/a>/gi)) {
    const attrs: Record<string, string> = {};
    for (const a of m[1]!.matchAll(/([\w-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
      attrs[a[1]!.toLowerCase()] = unescape(a[3] ?? a[4] ?? a[5] ?? '');
    }
    if (!attrs.href) continue;
    const f = fileFromUrl(attrs.href, pageUrl, `the href of link ${++n}`);
    out.push({
      ...f,
      filename: unescape(m[2]!.trim()) || f.filename,
      yanked: 'data-yanked' in attrs,
      ...(attrs['data-yanked'] && { yankedReason: attrs['data-yanked'] }),
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
  return doc.files.map((f, i) => ({
    filename: f.filename,
    url: urlFromIndex(f.url, pageUrl, `files[${i}].url`),
    sha256: f.hashes?.sha256?.toLowerCase(),
    size: f.size,
    yanked: f.yanked !== undefined && f.yanked !== false,
    ...(typeof f.yanked === 'string' && f.yanked && { yankedReason: f.yanked }),
    requiresPython: f['requires-python'],
    ...coreMetadataOf(f['core-metadata'] ?? f['data-dist-info-metadata'] ?? f['dist-info-metadata']),
  }));
}

interface JsonApi {
  releases?: Record<string, { filename: string; url: string; digests?: { sha256?: string }; size?: number; yanked?: boolean; yanked_reason?: string | null; requires_python?: string | null }[]>;
}

export function parseJsonApi(doc: JsonApi, pageUrl: string): IndexFile[] {
  if (!doc || typeof doc.releases !== 'object') {
    throw new XpuError('BAD_INDEX', `${pageUrl} is not a PyPI JSON API document (no "releases")`, { details: { url: pageUrl } });
  }
  return Object.entries(doc.releases).flatMap(([version, files]) => files.map((f, i) => ({
    filename: f.filename,
    url: urlFromIndex(f.url, pageUrl, `releases["${version}"][${i}].url`),
    sha256: f.digests?.sha256?.toLowerCase(),
    size: f.size,
    yanked: !!f.yanked,
    ...(f.yanked && f.yanked_reason && { yankedReason: f.yanked_reason }),
    requiresPython: f.requires_python ?? undefined,
  })));
}

/** The request for a project's page: `/pypi` URLs use the JSON API, anything else the simple API (JSON or HTML). */
export function projectPageRequest(indexUrl: string, project: string): { url: string; accept: string; jsonApi: boolean } {
  const base = indexUrl.replace(/\/+$/, '');
  const name = normalizeName(project);
  if (/\/pypi$/.test(base)) return { url: `${base}/${name}/json`, accept: 'application/json', jsonApi: true };
  return { url: `${base}/${name}/`, accept: 'application/vnd.pypi.simple.v1+json, text/html;q=0.1', jsonApi: false };
}

/**
 * A project page's files, by the format the server answered in; none whose name, yank reason or Requires-Python holds a
 * control character (each is printed in plans and messages).
 */
export function parseProjectPage(body: string, url: string, contentType: string, jsonApi: boolean): IndexFile[] {
  const files = parseAnyPage(body, url, contentType, jsonApi);
  files.forEach((f, i) => fieldsWithoutControls({ filename: f.filename, yankedReason: f.yankedReason, requiresPython: f.requiresPython }, `file ${i + 1}`, url));
  return files;
}

function parseAnyPage(body: string, url: string, contentType: string, jsonApi: boolean): IndexFile[] {
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
