// Version ordering as each ecosystem defines it (PEP 440 through pep440.ts, conda, Debian), and `name>=1.9` constraints checked with it.
import { XpuError } from '../base/errors.js';
import { comparePep440 } from './pep440.js';

export type Ordering = 'pep440' | 'conda' | 'debian';

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

// ---- conda ------------------------------------------------------------------------------------------------------

type CondaToken = number | string;

interface CondaParts {
  epoch: number;
  parts: CondaToken[][];
}

/** Versions already split: a resolver compares the same few hundred versions thousands of times. */
const condaPartsSeen = new Map<string, CondaParts>();

function condaParts(v: string): CondaParts {
  let known = condaPartsSeen.get(v);
  if (!known) {
    if (condaPartsSeen.size >= 50_000) condaPartsSeen.clear();
    known = splitConda(v);
    condaPartsSeen.set(v, known);
  }
  return known;
}

function splitConda(v: string): CondaParts {
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

/** A Debian version's upstream part: `1:1.20.6-1+b1` -> `1.20.6`. */
export function debianUpstream(v: string): string {
  return splitDebian(v.trim())[1];
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

/** A version as one source gave it, with the ordering its kind follows. */
export interface SourcedVersion {
  ordering: Ordering;
  version: string;
}

/**
 * Versions from two sources, `a` judged in its own ordering. Across orderings a Debian version counts by its
 * upstream part (no epoch or revision), which is what the other ecosystems publish.
 */
export function compareAcross(a: SourcedVersion, b: SourcedVersion): number {
  if (a.ordering === b.ordering) return compareIn(a.ordering, a.version, b.version);
  const plain = (x: SourcedVersion): string => (x.ordering === 'debian' ? debianUpstream(x.version) : x.version);
  return compareIn(a.ordering, plain(a), plain(b));
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

/** `version` against `other` in `ordering`; a Debian version counts by its upstream part when `other` has no revision. */
export function compareTo(ordering: Ordering, version: string, other: string): number {
  const v = ordering === 'debian' && !other.includes('-') ? debianUpstream(version) : version;
  return compareIn(ordering, v, other);
}

export function meets(version: string, c: Constraint, ordering: Ordering): boolean {
  const d = compareTo(ordering, version, c.version);
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

/** The constraints `version` does not meet, as written (`level-zero>=1.25`), for a message that names only those. */
export function unmetText(version: string, cs: readonly Constraint[], ordering: Ordering): string {
  return cs.filter((c) => !meets(version, c, ordering)).map((c) => c.text).join(', ');
}

const DEBIAN_OPS: Record<string, ConstraintOp> = { '<<': '<', '<=': '<=', '=': '==', '>=': '>=', '>>': '>' };

/** Debian relations as a Depends field writes them, `>= 1.8, << 2` (dpkg's << <= = >= >>); undefined when unreadable. */
export function parseDebianRelations(text: string): Constraint[] | undefined {
  const out: Constraint[] = [];
  for (const part of text.split(',')) {
    const m = /^\s*(<<|<=|=|>=|>>)\s*(\d[A-Za-z0-9.+~:-]*)\s*$/.exec(part);
    if (!m) return undefined;
    out.push({ component: '', op: DEBIAN_OPS[m[1]!]!, version: m[2]!, text: `${m[1]} ${m[2]}` });
  }
  return out;
}
