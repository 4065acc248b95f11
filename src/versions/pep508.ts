// PEP 508 dependency lines (`umf==1.0.*; sys_platform == "linux"`) and their environment markers, for a target platform.
import type { TargetPlatform } from '../platform/types.js';
import { layoutFor } from '../platform/index.js';

export interface Pep508 {
  name: string;
  extras: string[];
  /** The specifier as written, without spaces or parentheses (`==1.0.*`, `>=1.5,<2`); empty for any version. */
  specifier: string;
  marker?: string;
  url?: string;
}

/** One `Requires-Dist` value; undefined when it is not a PEP 508 line. */
/** A project name as PEP 503 compares it: lower case, runs of `-`, `_` and `.` as one `-`. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

export function parseRequirement(line: string): Pep508 | undefined {
  const [head = '', ...rest] = line.split(';');
  const marker = rest.join(';').trim() || undefined;
  const m = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[([^\]]*)\])?\s*(.*?)\s*$/.exec(head);
  if (!m) return undefined;
  const extras = (m[2] ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  let tail = m[3]!;
  if (tail.startsWith('@')) return { name: m[1]!, extras, specifier: '', marker, url: tail.slice(1).trim() };
  if (tail.startsWith('(') && tail.endsWith(')')) tail = tail.slice(1, -1);
  const specifier = tail.replace(/\s+/g, '');
  if (specifier && !/^(~=|===|==|!=|<=|>=|<|>)[^,()]+(,(~=|===|==|!=|<=|>=|<|>)[^,()]+)*$/.test(specifier)) return undefined;
  return { name: m[1]!, extras, specifier, marker };
}

/** `Requires-Dist` values of a METADATA file (RFC 822 headers; continuation lines folded). */
export function requiresDistOf(metadata: string): string[] {
  const headers = metadata.replace(/\r\n/g, '\n').split('\n\n')[0] ?? '';
  return headers
    .replace(/\n[ \t]+/g, ' ')
    .split('\n')
    .map((l) => /^Requires-Dist:\s*(.*)$/i.exec(l)?.[1]?.trim())
    .filter((v): v is string => !!v);
}

/** The marker variables of a target platform; the Python version is not known when installing libraries, so absent. */
export type MarkerEnv = Record<string, string | undefined>;

export function markerEnvFor(platform: TargetPlatform, python?: { version: string }): MarkerEnv {
  return {
    ...layoutFor(platform).markers,
    platform_python_implementation: 'CPython',
    implementation_name: 'cpython',
    python_version: python?.version.split('.').slice(0, 2).join('.'),
    python_full_version: python?.version,
    extra: '',
  };
}

type Token = { t: 'str'; v: string } | { t: 'var'; v: string } | { t: 'op'; v: string } | { t: '(' | ')' | 'and' | 'or' };

function tokenize(marker: string): Token[] | undefined {
  const out: Token[] = [];
  const re = /\s*(?:(["'])(.*?)\1|(\(|\))|(===|==|!=|<=|>=|~=|<|>|not\s+in\b|in\b)|(and|or)\b|([A-Za-z_][A-Za-z0-9_.]*))/y;
  let at = 0;
  while (at < marker.length) {
    if (/^\s*$/.test(marker.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(marker);
    if (!m) return undefined;
    at = re.lastIndex;
    if (m[1]) out.push({ t: 'str', v: m[2]! });
    else if (m[3]) out.push({ t: m[3] as '(' | ')' });
    else if (m[4]) out.push({ t: 'op', v: m[4].replace(/\s+/g, ' ') });
    else if (m[5]) out.push({ t: m[5] as 'and' | 'or' });
    else out.push({ t: 'var', v: m[6]! });
  }
  return out;
}

/**
 * Evaluates a marker for `env`. A comparison that involves a variable with no value here (the Python version, when
 * no interpreter is given) counts as true: a library's dependency is kept rather than dropped on a guess.
 * `compare` orders versions (PEP 440) for <, <=, >, >=, ~=; plain text otherwise. Undefined when it does not parse.
 */
export function evaluateMarker(marker: string, env: MarkerEnv, compare: (a: string, b: string, op: string) => boolean | undefined): boolean | undefined {
  const tokens = tokenize(marker);
  if (!tokens) return undefined;
  let i = 0;
  const value = (tok: Token | undefined): { v?: string; ok: boolean } => {
    if (tok?.t === 'str') return { v: tok.v, ok: true };
    if (tok?.t === 'var') return { v: env[tok.v], ok: tok.v in env };
    return { ok: false };
  };
  const atom = (): boolean | undefined => {
    const tok = tokens[i];
    if (tok?.t === '(') {
      i++;
      const r = or();
      if (tokens[i]?.t !== ')') return undefined;
      i++;
      return r;
    }
    const left = value(tokens[i++]);
    const op = tokens[i++];
    const right = value(tokens[i++]);
    if (!left.ok || !right.ok || op?.t !== 'op') return undefined;
    if (left.v === undefined || right.v === undefined) return true;
    switch (op.v) {
      case 'in':
        return right.v.includes(left.v);
      case 'not in':
        return !right.v.includes(left.v);
      case '==':
      case '===':
        return compare(left.v, right.v, '==') ?? left.v === right.v;
      case '!=':
        return !(compare(left.v, right.v, '==') ?? left.v === right.v);
      default:
        return compare(left.v, right.v, op.v) ?? false;
    }
  };
  const and = (): boolean | undefined => {
    let r = atom();
    while (tokens[i]?.t === 'and') {
      i++;
      const b = atom();
      r = r === undefined || b === undefined ? undefined : r && b;
    }
    return r;
  };
  const or = (): boolean | undefined => {
    let r = and();
    while (tokens[i]?.t === 'or') {
      i++;
      const b = and();
      r = r === undefined || b === undefined ? undefined : r || b;
    }
    return r;
  };
  const result = or();
  return i === tokens.length ? result : undefined;
}
