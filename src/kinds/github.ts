// The github source kind: a repository's release assets (Intel's compute-runtime .debs), read through the GitHub REST
// API (`/repos/{owner}/{repo}/releases`, `/releases/tags/{tag}`, `/contents/{path}?ref=`) by the gateway. Every sha256
// comes from the release's own sum list (`ww48.sum`); a file at the tag (`manifests/manifest.yml`) pins the releases
// of the other repositories that go with it (IGC), whose assets are checked against the digests GitHub lists.
import { visible, withoutControls } from '../base/control-chars.js';
import { EnvVars } from '../base/env-names.js';
import { XpuError } from '../base/errors.js';
import { controlFromTar, debControlMember, dependsFloor, unxz } from '../formats/deb.js';
import { zstdDecompressBytes } from '../formats/decompress.js';
import { formatOf } from '../formats/index.js';
import { contentRange } from '../net/download.js';
import { gunzipSync } from 'node:zlib';
import { DEFAULT_INDEX_LIMITS, overLimit, parseBoundedJson, type IndexLimits } from '../net/config.js';
import { urlFromIndex } from '../net/url-rule.js';
import type { PlannedArchive } from '../records/archive.js';
import { compareConda, debianUpstream, meetsAll } from '../versions/order.js';
import { inRange } from '../versions/range.js';
import { isStr, isStrArr } from './closure.js';
import type { KindIndexes } from '../records/plan.js';
import { indexRoot, NotAvailable, type Kind, type Resolution, type SourceBase, type SourceContext } from './kind.js';

/** Releases of another repository taken at the version the pins file names for `component`. */
export interface PinnedRelease {
  /** The name the pins file gives it (`igc` in compute-runtime's manifest.yml). */
  component: string;
  repository: string;
  /** Asset names, as in GithubSourceSpec.assets. */
  assets: string[];
  /** That release's own sum list, where it publishes one; else every asset needs the digest GitHub lists for it. */
  sums?: string;
}

export interface GithubSourceSpec extends SourceBase {
  kind: 'github';
  /** `owner/name`. */
  repository: string;
  /** The tags that are releases of it (a regular expression); default: dotted numbers only. */
  tags?: string;
  /** The asset holding the release's sha256 list: `{ww}` is the tag's second field (`ww48.sum` for 25.48.36300.8). */
  sums: string;
  /**
   * The assets to install: `{tag}` is the release's tag, `{NAME}` the version the pins file gives component NAME
   * (`libigdgmm12_{gmmlib}_amd64.deb`), `*` any run of characters but `/`.
   */
  assets: string[];
  /** A file at the tag naming the versions of the other repositories that go with it (`manifests/manifest.yml`). */
  pins?: string;
  with?: PinnedRelease[];
}

export const DEFAULT_GITHUB_API = 'https://api.github.com';
const API_JSON = 'application/vnd.github+json';
const RAW = 'application/vnd.github.raw+json';
const DEFAULT_TAGS = '^\\d+(\\.\\d+)+$';

/** The API a run reads: the named one (--github-url) or GitHub's. */
const apiOf = (named: KindIndexes): string => (named.github?.[0] ?? DEFAULT_GITHUB_API).replace(/\/+$/, '');

// ---- the documents ----------------------------------------------------------------------------------------------

/** One asset of a release, as the API lists it. */
export interface ReleaseAsset {
  name: string;
  url: string;
  size?: number;
  /** `sha256:<hex>`, which GitHub computes for assets uploaded since 2024. */
  digest?: string;
}

export interface Release {
  tag: string;
  draft: boolean;
  prerelease: boolean;
  assets: ReleaseAsset[];
}

const bad = (url: string, what: string): XpuError =>
  new XpuError('BAD_INDEX', `${url} is not a GitHub release document: ${what}`, {
    details: { url },
    hints: ['check that --github-url names a GitHub REST API root (https://api.github.com, or a mirror of its /repos/... paths)'],
  });

function releaseOf(v: unknown, url: string, at: string): Release {
  const r = v as Record<string, unknown>;
  if (!r || typeof r !== 'object' || typeof r.tag_name !== 'string' || !Array.isArray(r.assets)) throw bad(url, `${at} has no tag_name and assets`);
  const assets = (r.assets as Record<string, unknown>[]).map((a, i): ReleaseAsset => {
    if (!a || typeof a.name !== 'string' || typeof a.browser_download_url !== 'string') throw bad(url, `${at}.assets[${i}] has no name and browser_download_url`);
    return {
      name: withoutControls(a.name, `${at}.assets[${i}].name`, url),
      url: urlFromIndex(a.browser_download_url, url, `${at}.assets[${i}].browser_download_url`),
      ...(typeof a.size === 'number' && { size: a.size }),
      ...(typeof a.digest === 'string' && { digest: a.digest }),
    };
  });
  return { tag: withoutControls(r.tag_name, `${at}.tag_name`, url), draft: r.draft === true, prerelease: r.prerelease === true, assets };
}

/** Pure: the answer of `/releases` (a list) or `/releases/tags/{tag}` (one), within the JSON limits. */
export function parseReleases(bytes: Buffer, url: string, limits: IndexLimits): Release[] {
  let doc: unknown;
  try {
    doc = parseBoundedJson(bytes, url, limits);
  } catch (e) {
    if (e instanceof XpuError) throw e;
    throw bad(url, `not JSON (${(e as Error).message})`);
  }
  return Array.isArray(doc) ? doc.map((r, i) => releaseOf(r, url, `[${i}]`)) : [releaseOf(doc, url, 'the release')];
}

/**
 * Pure: a sha256 list as `sha256sum` writes it (`<hex>  <name>`, `*` before a name read in binary mode) -> name ->
 * sha256. Any other line is refused: a list that cannot be read whole verifies nothing.
 */
export function parseSumList(text: string, url: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [i, raw] of withoutBom(text).split('\n').entries()) {
    const line = raw.replace(/\r$/, '');
    if (!line.trim()) continue;
    const m = /^([0-9a-fA-F]{64}) [ *](\S(?:.*\S)?)$/.exec(line);
    if (!m) {
      throw new XpuError('BAD_INDEX', `${url} line ${i + 1} is not "<sha256>  <file name>": "${visible(line.slice(0, 120))}"`, {
        details: { url, line: i + 1 },
        hints: ['the release\'s sum list is damaged or not a sha256sum list; nothing from this release was used'],
      });
    }
    out.set(withoutControls(m[2]!.replace(/^.*\//, ''), `line ${i + 1}'s file name`, url), m[1]!.toLowerCase());
  }
  return out;
}

/**
 * The line without a YAML comment (a `#` after white space, and that white space), in one pass: a regular expression
 * such as /\s+#.*$/ tries every start in a long run of spaces, and a line of a million spaces then takes minutes.
 */
export function withoutComment(line: string): string {
  for (let i = line.indexOf('#'); i > 0; i = line.indexOf('#', i + 1)) {
    if (line[i - 1] === ' ' || line[i - 1] === '\t') return line.slice(0, i).trimEnd();
  }
  return line;
}

/** A text file saved with a byte order mark (editors on Windows write one) reads as the same file without it. */
const withoutBom = (text: string): string => text.replace(/^\ufeff/, '');

/**
 * The file the contents API answered for: as it is (the raw media type asked for), or decoded from the API's JSON form
 * (`{"type": "file", "encoding": "base64", "content": ...}`), which a mirror may send whatever was asked.
 */
export function fileOfContents(text: string, url: string): string {
  if (!/^\s*\{/.test(text)) return withoutBom(text);
  let doc: { type?: unknown; encoding?: unknown; content?: unknown };
  try {
    doc = parseBoundedJson(Buffer.from(text), url, DEFAULT_INDEX_LIMITS) as typeof doc;
  } catch (e) {
    // Not JSON: a text file that begins with a brace, read as it is.
    if (e instanceof XpuError) throw e;
    return withoutBom(text);
  }
  if (doc && doc.type === 'file' && doc.encoding === 'base64' && typeof doc.content === 'string') return withoutBom(Buffer.from(doc.content, 'base64').toString('utf8'));
  throw new XpuError('BAD_INDEX', `${url} answered with the contents API's JSON form, but not a file in base64 (type ${JSON.stringify(doc?.type)}, encoding ${JSON.stringify(doc?.encoding)})`, {
    details: { url },
    hints: ['GitHub sends files over 1 MB without their content; a mirror should answer the raw media type (application/vnd.github.raw+json) or the JSON form with base64 content'],
  });
}

/**
 * Pure: compute-runtime's `manifests/manifest.yml` -> component -> its fields (`revision`, `repository`, ...): the
 * `components:` mapping of mappings of plain scalars, which is all that file holds.
 */
export function parsePinsFile(text: string, url: string): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  let inComponents = false;
  let indent: number | undefined;
  let current: Record<string, string> | undefined;
  for (const [i, raw] of fileOfContents(text, url).split('\n').entries()) {
    const line = withoutComment(raw.replace(/\r$/, ''));
    if (!line.trim() || /^\s*#/.test(line)) continue;
    const m = /^(\s*)([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(line);
    if (!m) throw new XpuError('BAD_INDEX', `${url} line ${i + 1} is not "key: value": "${visible(line.slice(0, 120))}"`, { details: { url, line: i + 1 } });
    const depth = m[1]!.length;
    const value = m[3]?.trim().replace(/^'(.*)'$|^"(.*)"$/, '$1$2');
    if (depth === 0) {
      inComponents = m[2] === 'components' && value === undefined;
      current = undefined;
      continue;
    }
    if (!inComponents) continue;
    indent ??= depth;
    if (depth === indent) {
      current = {};
      out.set(m[2]!, current);
    } else if (current && value !== undefined) current[m[2]!] = value;
  }
  if (!out.size) throw new XpuError('BAD_INDEX', `${url} has no "components:" mapping`, { details: { url } });
  return out;
}

/** `v2.24.8`, `igc-1.0.12504.6`, `intel-gmmlib-22.8.2` -> the release number; a commit or a branch -> undefined. */
export const versionOfRevision = (revision: string): string | undefined => /(?:^|[^0-9.])(\d+(?:\.\d+)+)$/.exec(revision)?.[1];

/** `25.48.36300.8` -> `48`: the work week the sum list is named after. */
const weekOf = (tag: string): string => tag.split('.')[1] ?? '';

/** An asset name with its placeholders filled in, as a test of names. */
function namePattern(pattern: string, values: Record<string, string>, where: string): RegExp {
  const filled = pattern.replace(/\{([A-Za-z0-9_-]+)\}/g, (_, k: string) => {
    const v = values[k];
    if (v === undefined) throw new XpuError('BAD_MANIFEST', `${where}: "${pattern}" names {${k}}, which nothing gives a value (known: ${Object.keys(values).join(', ')})`);
    return v;
  });
  return new RegExp(`^${filled.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
}

// ---- resolve ----------------------------------------------------------------------------------------------------

interface Reader {
  json(url: string): Promise<Release[]>;
  text(url: string, accept?: string): Promise<string>;
}

/** GitHub's answer when it will not serve more: 403 or 429 (60 requests an hour per address without a token). */
function rateLimited(e: unknown, url: string): never {
  const status = e instanceof XpuError && e.code === 'HTTP_STATUS' ? e.details.status : undefined;
  if (status !== 403 && status !== 429) throw e;
  throw new XpuError('HTTP_STATUS', `GET ${url} answered HTTP ${String(status)}: the GitHub API refuses this address more requests for now (its limit without a token is 60 an hour); wait and run again, or name a mirror of the API with --github-url`, {
    cause: e,
    details: { url, status },
    hints: [
      `give a token for the API: ${EnvVars.XPU_SETUP_GITHUB_TOKEN} or ${EnvVars.GITHUB_TOKEN} (the action sends its github-token input, the job's token by default)`,
      'or wait an hour and run again (answers already read are kept in the cache), or name a mirror of the API with --github-url, or take another source with --source',
    ],
  });
}

/** The run's index limits (a gateway over a client of its own in tests: the defaults). */
const limitsOf = (ctx: SourceContext): IndexLimits => (ctx.gateway.client.http as { config?: { limits: IndexLimits } } | undefined)?.config?.limits ?? DEFAULT_INDEX_LIMITS;

function readerFor(ctx: SourceContext): Reader {
  const client = ctx.gateway.client;
  const limits = limitsOf(ctx);
  // Every document of this kind is small text: none may be read past the JSON limit (a V8 string ends near 512 MB).
  const get = (url: string, accept: string | undefined, limit: 'jsonBytes') =>
    client.bytes(url, { ...(accept ? { accept } : {}), maxBytes: limits[limit], limit }).catch((e: unknown) => rateLimited(e, url));
  return {
    json: async (url) => parseReleases((await get(url, API_JSON, 'jsonBytes')).bytes, url, limits),
    text: async (url, accept) => (await get(url, accept, 'jsonBytes')).bytes.toString('utf8'),
  };
}

/** The archive a plan names for one asset, with the sha256 it was verified by (fetch checks the download against it). */
function archiveOf(asset: ReleaseAsset, sha256: string, spec: GithubSourceSpec): PlannedArchive {
  const [pkg = asset.name, version = ''] = asset.name.replace(/\.deb$/, '').split('_');
  return { package: pkg, version, filename: asset.name, url: asset.url, sha256, ...(asset.size !== undefined && { size: asset.size }), format: formatOf(asset.name)!, map: spec.map };
}

function digestOf(asset: ReleaseAsset): string | undefined {
  const m = /^sha256:([0-9a-f]{64})$/i.exec(asset.digest ?? '');
  return m?.[1]!.toLowerCase();
}

/** The assets of a release matching the patterns, each exactly once, or what is missing. */
function pick(release: Release, patterns: RegExp[], texts: string[]): { found: ReleaseAsset[]; missing: string[] } {
  const found: ReleaseAsset[] = [];
  const missing: string[] = [];
  patterns.forEach((p, i) => {
    const hits = release.assets.filter((a) => p.test(a.name));
    if (hits.length === 1) found.push(hits[0]!);
    else if (!hits.length) missing.push(texts[i]!);
    else throw new XpuError('BAD_MANIFEST', `"${texts[i]}" matches ${hits.length} assets of release ${release.tag}: ${hits.map((h) => h.name).join(', ')}`, { hints: ['make the asset name in the manifest exact'] });
  });
  return { found, missing };
}

/** The sha256 of each asset from a sum list, refusing one the list lacks or one whose GitHub digest says otherwise. */
function verified(assets: ReleaseAsset[], sums: Map<string, string>, sumUrl: string, release: string, spec: GithubSourceSpec): PlannedArchive[] {
  return assets.map((a) => {
    const sha = sums.get(a.name);
    if (!sha) {
      throw new XpuError('HASH_MISMATCH', `${a.name} of release ${release} is not in its sum list ${sumUrl}, so its download cannot be verified; refused`, {
        details: { url: a.url, sums: sumUrl },
        hints: ['the release lists an asset its own sum list does not: nothing was installed. Take another release (--require), or report it to the repository owner'],
      });
    }
    const digest = digestOf(a);
    if (digest && digest !== sha) {
      throw new XpuError('HASH_MISMATCH', `sha256 of ${a.name} (release ${release}): the sum list ${sumUrl} says ${sha}, the GitHub API's digest says ${digest}; they disagree, so neither is trusted`, {
        details: { url: a.url, sums: sumUrl, expected: sha, actual: digest },
        hints: ['the release was changed after its sum list was written, or one of them is wrong: nothing was installed. Report it to the repository owner, or take another release (--require)'],
      });
    }
    return archiveOf(a, sha, spec);
  });
}

/** Assets of a release without a sum list: the digest GitHub computed for each is the only hash, so one without it is refused. */
function byDigest(assets: ReleaseAsset[], releaseUrl: string, release: string, spec: GithubSourceSpec): PlannedArchive[] {
  return assets.map((a) => {
    const d = digestOf(a);
    if (!d) {
      throw new XpuError('HASH_MISMATCH', `${a.name} of release ${release} has no sha256: ${releaseUrl} lists no digest for it and the release has no sum list; refused`, {
        details: { url: a.url },
        hints: ['nothing was installed: its download could not be verified. Take another release (--require), or report it to the repository owner'],
      });
    }
    return archiveOf(a, d, spec);
  });
}

export async function resolveGithub(spec: GithubSourceSpec, ctx: SourceContext): Promise<Resolution> {
  const api = apiOf(ctx.indexes);
  const read = readerFor(ctx);
  const listUrl = `${api}/repos/${spec.repository}/releases?per_page=100`;
  let releases: Release[];
  try {
    releases = await read.json(listUrl);
  } catch (e) {
    if (e instanceof XpuError && e.code === 'NOT_FOUND') throw new NotAvailable(`${listUrl} answered HTTP 404: no repository ${spec.repository} there`);
    throw e;
  }
  const tagRule = new RegExp(spec.tags ?? DEFAULT_TAGS);
  const constraints = ctx.constraints ?? [];
  const candidates = releases
    .filter((r) => !r.draft && !r.prerelease && tagRule.test(r.tag) && inRange('conda', r.tag, spec.versions) && meetsAll(r.tag, constraints, 'conda'))
    .sort((a, b) => compareConda(b.tag, a.tag));
  const misses: string[] = [];
  // Newer releases left because their packages say they need a newer glibc than this host's: said with the choice.
  const away: string[] = [];
  const most = limitsOf(ctx).candidates;
  for (const [n, release] of candidates.entries()) {
    if (n === most) throw overLimit(listUrl, `has releases that fit, none of the newest usable (${misses.slice(0, 2).join('; ')}); tried no`, most, 'candidates');
    const sumName = spec.sums.replace(/\{ww\}/g, weekOf(release.tag));
    const sumAsset = release.assets.find((a) => a.name === sumName);
    if (!sumAsset) {
      misses.push(`release ${release.tag} has no sum list ${sumName}`);
      continue;
    }
    const values: Record<string, string> = { tag: release.tag };
    let pinned: Map<string, Record<string, string>> | undefined;
    if (spec.pins) {
      const pinsUrl = `${api}/repos/${spec.repository}/contents/${spec.pins}?ref=${encodeURIComponent(release.tag)}`;
      const text = await read.text(pinsUrl, RAW).catch((e: unknown) => {
        if (e instanceof XpuError && e.code === 'NOT_FOUND') return undefined;
        throw e;
      });
      if (text === undefined) {
        misses.push(`release ${release.tag} has no ${spec.pins} (${pinsUrl}: HTTP 404), so what goes with it is not known`);
        continue;
      }
      pinned = parsePinsFile(text, pinsUrl);
      for (const [name, fields] of pinned) {
        const v = fields.revision && versionOfRevision(fields.revision);
        if (v) values[name] = v;
      }
    }
    const where = `the ${spec.repository} source`;
    const own = pick(release, spec.assets.map((p) => namePattern(p, values, where)), spec.assets);
    if (own.missing.length) {
      misses.push(`release ${release.tag} has no asset ${own.missing.map((m) => m.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`)).join(', ')}`);
      continue;
    }
    const sums = parseSumList(await read.text(sumAsset.url), sumAsset.url);
    const archives = verified(own.found, sums, sumAsset.url, release.tag, spec);
    // The head of the release's first package is read while the releases it pins are looked up.
    const firstDeb = archives.find((a) => a.format === 'deb');
    if (ctx.host.glibc && firstDeb) void glibcFloorOf(firstDeb, ctx);
    for (const w of spec.with ?? []) archives.push(...(await pinnedArchives(w, release.tag, pinned, values, api, read, spec)));
    const needs = await glibcAbove(archives, ctx);
    if (needs) {
      away.push(`${release.tag} needs glibc ${needs.glibc}`);
      misses.push(`release ${release.tag} needs glibc ${needs.glibc} (${needs.archive.filename}: Depends libc6 (>= ${needs.glibc})); this host has ${ctx.host.glibc!}`);
      continue;
    }
    return { source: 'github', origin: api, version: release.tag, archives, ...(away.length && { turnedAway: [...away, `this host has glibc ${ctx.host.glibc!}`] }) };
  }
  const seen = releases.length ? `; releases there: ${releases.slice(0, 5).map((r) => r.tag).join(', ')}${releases.length > 5 ? ', ...' : ''}` : '';
  throw new NotAvailable(misses.length ? misses.slice(0, 3).join('; ') : `${spec.repository} on ${api} has no release that fits${constraints.length ? ` ${constraints.map((c) => c.text).join(', ')}` : ''}${seen}`);
}

/** The bytes of a .deb read before it is downloaded: its control member comes right after `debian-binary`. */
const DEB_HEAD = 64 * 1024;
/** What one control file may decompress to. */
const CONTROL_BYTES = 1024 * 1024;

/** Each .deb's libc6 floor, read once per run (several components and plans ask of the same release). */
const floors = new Map<string, Promise<string | undefined>>();

/**
 * The libc6 floor a .deb's control file sets (`Depends: libc6 (>= 2.43)`), read from the package's first bytes by one
 * Range request, before anything is downloaded; undefined when it cannot be read that way (a server that ignores
 * Range, an xz control member, offline): the package's ELF needs are then checked once it is downloaded.
 */
function glibcFloorOf(archive: PlannedArchive, ctx: SourceContext): Promise<string | undefined> {
  const key = `${archive.url}\n${archive.sha256}`;
  let got = floors.get(key);
  if (!got) {
    got = readGlibcFloor(archive.url, ctx).catch(() => undefined);
    floors.set(key, got);
  }
  return got;
}

async function readGlibcFloor(url: string, ctx: SourceContext): Promise<string | undefined> {
  if (ctx.gateway.client.policy === 'cache-only') return undefined;
  const http = ctx.gateway.http;
  const res = await http.open(url, { headers: { range: `bytes=0-${DEB_HEAD - 1}` }, maxBytes: DEB_HEAD, index: true });
  if (res.status !== 206 || contentRange(res.headers['content-range'])?.start !== 0) {
    await res.discard();
    return undefined;
  }
  const parts: Buffer[] = [];
  for await (const c of res.body) parts.push(c as Buffer);
  ctx.gateway.stats.requests++;
  const head = Buffer.concat(parts);
  ctx.gateway.stats.downloadedBytes += head.length;
  const member = debControlMember(head);
  if (!member || member.start + member.size > head.length) return undefined;
  const packed = head.subarray(member.start, member.start + member.size);
  const tar = member.name === 'control.tar' ? packed
    : member.name === 'control.tar.zst' ? await zstdDecompressBytes(packed, CONTROL_BYTES)
      : member.name === 'control.tar.gz' ? gunzipSync(packed, { maxOutputLength: CONTROL_BYTES })
        : member.name === 'control.tar.xz' ? await unxz(packed, CONTROL_BYTES)
          : undefined;
  const control = tar && controlFromTar(tar);
  const floor = control ? dependsFloor(control, 'libc6') : undefined;
  return floor && debianUpstream(floor);
}

/** The first archive whose control file needs a newer glibc than this host's, with that glibc; undefined when none does or the host's is not known. */
async function glibcAbove(archives: readonly PlannedArchive[], ctx: SourceContext): Promise<{ archive: PlannedArchive; glibc: string } | undefined> {
  const host = ctx.host.glibc;
  if (!host) return undefined;
  const debs = archives.filter((a) => a.format === 'deb');
  // The first package's head alone: a release built for a newer glibc says so there, and is passed over on one
  // request. The others' are then asked for at once; the first in order that needs more than the host has is named.
  for (const group of [debs.slice(0, 1), debs.slice(1)]) {
    const needs = await Promise.all(group.map((a) => glibcFloorOf(a, ctx)));
    const i = needs.findIndex((glibc) => glibc !== undefined && compareConda(glibc, host) > 0);
    if (i >= 0) return { archive: group[i]!, glibc: needs[i]! };
  }
  return undefined;
}

/** The assets of the release of `w.repository` that the pins file at `tag` names, verified by its sum list or GitHub's digests. */
async function pinnedArchives(
  w: PinnedRelease,
  tag: string,
  pinned: Map<string, Record<string, string>> | undefined,
  values: Record<string, string>,
  api: string,
  read: Reader,
  spec: GithubSourceSpec,
): Promise<PlannedArchive[]> {
  const revision = pinned?.get(w.component)?.revision;
  if (!revision || !versionOfRevision(revision)) {
    throw new NotAvailable(`${spec.pins} at ${spec.repository} ${tag} pins ${w.component} ${revision ? `at ${revision}, which is not a release` : 'nowhere'}: no ${w.repository} release to take`);
  }
  const url = `${api}/repos/${w.repository}/releases/tags/${encodeURIComponent(revision)}`;
  let release: Release;
  try {
    [release] = (await read.json(url)) as [Release];
  } catch (e) {
    if (e instanceof XpuError && e.code === 'NOT_FOUND') throw new NotAvailable(`${spec.pins} at ${spec.repository} ${tag} pins ${w.component} ${revision}, and ${w.repository} has no release ${revision} (${url}: HTTP 404)`);
    throw e;
  }
  const got = pick(release, w.assets.map((p) => namePattern(p, { ...values, version: values[w.component]! }, `the ${w.repository} release`)), w.assets);
  if (got.missing.length) throw new NotAvailable(`${w.repository} release ${revision} (pinned by ${spec.pins} at ${tag}) has no asset ${got.missing.join(', ')}`);
  const sumAsset = w.sums ? release.assets.find((a) => a.name === w.sums) : undefined;
  if (sumAsset) return verified(got.found, parseSumList(await read.text(sumAsset.url), sumAsset.url), sumAsset.url, `${w.repository} ${revision}`, spec);
  return byDigest(got.found, url, `${w.repository} ${revision}`, spec);
}

export const github: Kind<GithubSourceSpec> = {
  name: 'github',
  // Tags are dotted release numbers (yy.ww.build.hotfix), which conda's order compares field by field.
  ordering: 'conda',
  validate(s, bad) {
    if (!isStr(s.repository) || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(s.repository)) throw bad('github sources need "repository": "owner/name"');
    if (!isStr(s.sums)) throw bad('github sources need "sums": the asset holding the release\'s sha256 list');
    if (!isStrArr(s.assets) || s.assets.some((a) => !formatOf(a.replace(/\*/g, 'x')))) throw bad('"assets" must be a non-empty list of archive names (.deb, .tar.gz, ...)');
    if (s.tags !== undefined) {
      try {
        new RegExp(s.tags);
      } catch {
        throw bad('"tags" must be a regular expression');
      }
    }
    if (s.with !== undefined) {
      if (!isStr(s.pins)) throw bad('"with" needs "pins": the file at the tag that names their versions');
      if (!Array.isArray(s.with) || s.with.some((w) => !isStr(w?.component) || !isStr(w?.repository) || !isStrArr(w?.assets))) {
        throw bad('"with" must be a list of { "component", "repository", "assets" }');
      }
    }
  },
  resolve: resolveGithub,
  describe: (spec, named) => `github ${spec.repository} (${apiOf(named)})`,
  indexes: (_spec, named) => [indexRoot(apiOf(named))],
  recordedIndexes: (origin) => (/^https?:/.test(origin) ? [indexRoot(origin)] : []),
  optionValues: (origin) => (origin === DEFAULT_GITHUB_API ? [] : [origin]),
};
