// Version ordering as each ecosystem defines it (PEP 440, conda, Debian), and `name>=1.9` constraints checked with it.
import { XpuError } from '../errors.js';
import type { SourceKind } from '../manifest/schema.js';

export type Ordering = 'pep440' | 'conda' | 'debian';

/** The ordering a source's version strings follow; pinned URLs carry plain release numbers, which conda's order handles. */
export function orderingOf(kind: SourceKind): Ordering {
  return kind === 'pypi' ? 'pep440' : kind === 'apt' ? 'debian' : 'conda';
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

// ---- PEP 440 ----------------------------------------------------------------------------------------------------

interface Pep440 {
  epoch: number;
  release: number[];
  /** [phase, n]: a=0, b=1, rc=2; absent for a final release. */
  pre?: [number, number];
  post?: number;
  dev?: number;
  local: string;
}

const PEP440_RE =
  /^v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|c|rc|pre|preview)[-_.]?(\d*))?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d*))?(?:[-_.]?(dev)[-_.]?(\d*))?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$/i;

export function parsePep440(v: string): Pep440 | undefined {
  const m = PEP440_RE.exec(v.trim());
  if (!m) return undefined;
  const phase = m[3]?.toLowerCase();
  const pre: [number, number] | undefined = phase
    ? [phase.startsWith('a') ? 0 : phase.startsWith('b') ? 1 : 2, Number(m[4] || 0)]
    : undefined;
  const post = m[5] !== undefined ? Number(m[5]) : m[6] ? Number(m[7] || 0) : undefined;
  return {
    epoch: Number(m[1] ?? 0),
    release: m[2]!.split('.').map(Number),
    pre,
    post,
    dev: m[8] ? Number(m[9] || 0) : undefined,
    local: m[10] ?? '',
  };
}

function compareRelease(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d) return sign(d);
  }
  return 0;
}

/** PEP 440 order: 1.9.dev0 < 1.9a1 < 1.9rc1 < 1.9 < 1.9.post1; versions that do not parse sort by text. */
export function comparePep440(a: string, b: string): number {
  const pa = parsePep440(a);
  const pb = parsePep440(b);
  if (!pa || !pb) return a === b ? 0 : sign(a.localeCompare(b, 'en', { numeric: true }));
  if (pa.epoch !== pb.epoch) return sign(pa.epoch - pb.epoch);
  const r = compareRelease(pa.release, pb.release);
  if (r) return r;
  // A dev release with no pre or post segment sorts before every pre-release of the same release.
  const preKey = (p: Pep440): number[] =>
    p.pre ? p.pre : p.post === undefined && p.dev !== undefined ? [-1, 0] : [Number.POSITIVE_INFINITY, 0];
  const [ka, kb] = [preKey(pa), preKey(pb)];
  if (ka[0] !== kb[0]) return sign(ka[0]! - kb[0]!);
  if (ka[1] !== kb[1]) return sign(ka[1]! - kb[1]!);
  const post = (p: Pep440) => (p.post === undefined ? -1 : p.post);
  if (post(pa) !== post(pb)) return sign(post(pa) - post(pb));
  const dev = (p: Pep440) => (p.dev === undefined ? Number.POSITIVE_INFINITY : p.dev);
  if (dev(pa) !== dev(pb)) return sign(dev(pa) - dev(pb));
  // Equal local labels (almost always both empty) need no collation: the first localeCompare with a locale costs ~20 ms.
  return pa.local === pb.local ? 0 : sign(pa.local.localeCompare(pb.local, 'en', { numeric: true }));
}

// ---- conda ------------------------------------------------------------------------------------------------------

type CondaToken = number | string;

function condaParts(v: string): { epoch: number; parts: CondaToken[][] } {
  let s = v.trim().toLowerCase().split('+')[0]!;
  let epoch = 0;
  const bang = s.indexOf('!');
  if (bang >= 0) {
    epoch = Number(s.slice(0, bang)) || 0;
    s = s.slice(bang + 1);
  }
  const parts = s.split(/[._-]/).filter(Boolean).map((p) => {
    const tokens: CondaToken[] = (p.match(/\d+|[a-z]+|\*/g) ?? []).map((t) => (/^\d+$/.test(t) ? Number(t) : t));
    // conda reads "1.1.a1" as "1.1.0a1": a part that starts with letters gets a leading 0.
    if (typeof tokens[0] === 'string') tokens.unshift(0);
    return tokens;
  });
  return { epoch, parts };
}

/** dev < other words (alphabetical) < numbers < post, as conda's VersionOrder ranks them. */
function rankConda(t: CondaToken): [number, number | string] {
  if (typeof t === 'number') return [2, t];
  if (t === 'dev') return [0, 0];
  if (t === 'post') return [3, 0];
  return [1, t];
}

/** conda's order: 1.9dev0 < 1.9a1 < 1.9rc1 < 1.9 < 1.9.post1; a missing part counts as 0. */
export function compareConda(a: string, b: string): number {
  const pa = condaParts(a);
  const pb = condaParts(b);
  if (pa.epoch !== pb.epoch) return sign(pa.epoch - pb.epoch);
  for (let i = 0; i < Math.max(pa.parts.length, pb.parts.length); i++) {
    const xa = pa.parts[i] ?? [0];
    const xb = pb.parts[i] ?? [0];
    for (let j = 0; j < Math.max(xa.length, xb.length); j++) {
      const [ra, va] = rankConda(xa[j] ?? 0);
      const [rb, vb] = rankConda(xb[j] ?? 0);
      if (ra !== rb) return sign(ra - rb);
      if (va !== vb) return typeof va === 'number' ? sign(va - (vb as number)) : va < (vb as string) ? -1 : 1;
    }
  }
  return 0;
}

// ---- Debian -----------------------------------------------------------------------------------------------------

/** dpkg's character order in non-digit runs: ~ before the end, then letters, then everything else. */
function debCharOrder(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c === '~') return -1;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

function compareDebPart(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let first = 0;
    while ((i < a.length && !/\d/.test(a[i]!)) || (j < b.length && !/\d/.test(b[j]!))) {
      const ca = i < a.length && !/\d/.test(a[i]!) ? a[i] : undefined;
      const cb = j < b.length && !/\d/.test(b[j]!) ? b[j] : undefined;
      const d = debCharOrder(ca) - debCharOrder(cb);
      if (d) return sign(d);
      if (ca !== undefined) i++;
      if (cb !== undefined) j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (i < a.length && /\d/.test(a[i]!) && j < b.length && /\d/.test(b[j]!)) {
      if (!first) first = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && /\d/.test(a[i]!)) return 1;
    if (j < b.length && /\d/.test(b[j]!)) return -1;
    if (first) return sign(first);
  }
  return 0;
}

function splitDebian(v: string): [number, string, string] {
  const colon = v.indexOf(':');
  const epoch = colon > 0 ? Number(v.slice(0, colon)) || 0 : 0;
  const rest = colon > 0 ? v.slice(colon + 1) : v;
  const dash = rest.lastIndexOf('-');
  return dash > 0 ? [epoch, rest.slice(0, dash), rest.slice(dash + 1)] : [epoch, rest, ''];
}

/** dpkg's order (epoch, upstream, revision): 1.9~rc1-1 < 1.9-1 < 1.9-1+b1. */
export function compareDebian(a: string, b: string): number {
  const [ea, ua, ra] = splitDebian(a.trim());
  const [eb, ub, rb] = splitDebian(b.trim());
  if (ea !== eb) return sign(ea - eb);
  return compareDebPart(ua, ub) || compareDebPart(ra, rb);
}

export function compareIn(ordering: Ordering, a: string, b: string): number {
  return ordering === 'pep440' ? comparePep440(a, b) : ordering === 'debian' ? compareDebian(a, b) : compareConda(a, b);
}

// ---- constraints ------------------------------------------------------------------------------------------------

export type ConstraintOp = '>=' | '>' | '<=' | '<' | '==' | '!=';

export interface Constraint {
  component: string;
  op: ConstraintOp;
  version: string;
  /** As the user or manifest wrote it, for messages and the receipt. */
  text: string;
}

/** `level-zero>=1.9`, `unified-runtime == 2025.2.1` (`=` is read as `==`). */
export function parseConstraint(text: string): Constraint {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(>=|<=|==|!=|>|<|=)\s*([^\s,;]+)\s*$/.exec(text);
  if (!m) {
    throw new XpuError('USAGE', `cannot read the version constraint "${text}"`, {
      hints: ["write COMPONENT OP VERSION with OP one of >= > <= < == !=, e.g. --require 'level-zero>=1.9'"],
    });
  }
  const op = (m[2] === '=' ? '==' : m[2]) as ConstraintOp;
  return { component: m[1]!, op, version: m[3]!, text: `${m[1]}${op}${m[3]}` };
}

/** For Debian versions the floor is compared with the upstream part when it has no revision of its own. */
export function meets(version: string, c: Constraint, ordering: Ordering): boolean {
  let v = version;
  if (ordering === 'debian' && !c.version.includes('-')) v = splitDebian(version)[1];
  const d = compareIn(ordering, v, c.version);
  switch (c.op) {
    case '>=':
    case '>':
    case '<=':
    case '<':
      return orders(d, c.op);
    case '==':
      return d === 0;
    case '!=':
      return d !== 0;
  }
}

/** Whether a comparison result `d` (a against b) satisfies `a OP b` for an ordering operator. */
export function orders(d: number, op: '>=' | '>' | '<=' | '<'): boolean {
  return op === '>=' ? d >= 0 : op === '>' ? d > 0 : op === '<=' ? d <= 0 : d < 0;
}

export function meetsAll(version: string, cs: readonly Constraint[], ordering: Ordering): boolean {
  return cs.every((c) => meets(version, c, ordering));
}
