// conda match specs as repodata writes them (`umf ==1.0.2`, `level-zero >=1.20.2,<2.0a0`, `level-zero 1.8.12 h6ad65f8_0`), and virtual packages.
import type { Host } from '../platform/types.js';
import { layoutFor } from '../platform/index.js';
import { compareConda, orders } from './order.js';

export interface MatchSpec {
  name: string;
  /** The version part (`>=1.20.2,<2.0a0`, `1.0.*`, `1.8.12`); empty for any. */
  version: string;
  /** A build string, `*` globs allowed. */
  build?: string;
}

/** `name [version [build]]`; also `name==1.0` with no space. */
export function parseMatchSpec(text: string): MatchSpec {
  const t = text.trim();
  const glued = /^([^\s=<>!~]+)((?:==|>=|<=|!=|~=|=|<|>)\S*)$/.exec(t);
  if (glued) return { name: glued[1]!, version: glued[2]! };
  const [name = '', version = '', build] = t.split(/\s+/);
  return { name, version, build };
}

/** Whether version `v` starts with the parts of `prefix` (`1.0.2` starts with `1.0`), in conda's order. */
function startsWith(v: string, prefix: string): boolean {
  const vp = v.split('.');
  const pp = prefix.split('.').filter(Boolean);
  if (pp.length > vp.length) return false;
  return pp.every((p, i) => compareConda(vp[i]!, p) === 0);
}

function matchTerm(v: string, term: string): boolean {
  const m = /^(==|>=|<=|!=|~=|=|<|>)?(.*)$/.exec(term.trim())!;
  const op = m[1] ?? '';
  let ver = m[2]!.trim();
  if (ver === '*' || ver === '') return true;
  const glob = ver.endsWith('*');
  if (glob) ver = ver.replace(/\.?\*$/, '');
  const d = compareConda(v, ver);
  switch (op) {
    case '>=':
    case '>':
    case '<=':
    case '<':
      return orders(d, op);
    case '!=':
      return glob ? !startsWith(v, ver) : d !== 0;
    case '~=': {
      // ~=1.4.5 means >=1.4.5 and 1.4.*
      const parts = ver.split('.');
      return d >= 0 && startsWith(v, parts.slice(0, Math.max(1, parts.length - 1)).join('.'));
    }
    case '=':
      // A single `=` is conda's fuzzy match: `=1.0` takes 1.0.x.
      return startsWith(v, ver);
    default:
      return glob ? startsWith(v, ver) : d === 0;
  }
}

const TERM = /^\s*(?:==|>=|<=|!=|~=|=|<|>)?\s*(?:\*|[0-9A-Za-z_]+(?:[.!+_-][0-9A-Za-z_]+)*(?:\.?\*)?)\s*$/;

/** Whether `spec` reads as a conda version spec (`>=1.20.2,<2.0a0`, `1.0.*`, `2025.3|2026.0`). */
export function isVersionSpec(spec: string): boolean {
  return spec.split('|').every((alt) => alt.split(',').every((term) => TERM.test(term)));
}

/** A conda version spec: `|` (or) of `,` (and) of terms. */
export function matchesVersion(v: string, spec: string): boolean {
  if (!spec.trim()) return true;
  return spec.split('|').some((alt) => alt.split(',').every((term) => matchTerm(v, term)));
}

export function matchesBuild(build: string, pattern: string | undefined): boolean {
  if (!pattern || pattern === '*') return true;
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(build);
}

export function matchesSpec(spec: MatchSpec, record: { name: string; version: string; build?: string }): boolean {
  return spec.name === record.name && matchesVersion(record.version, spec.version) && matchesBuild(record.build ?? '', spec.build);
}

/** A conda virtual package (`__glibc`): provided by the machine, never installed. */
export const isVirtual = (name: string): boolean => name.startsWith('__');

/**
 * The virtual packages the target host provides, as conda and rattler derive them: `__glibc` at the host's glibc,
 * `__linux`/`__unix` or `__win`, `__archspec` (the arch's machine: x86_64, aarch64). A glibc that is not known (a plan for another machine) is
 * undefined: specs on it are taken as met.
 */
export function virtualPackages(host: Host): Map<string, { version?: string; build?: string }> {
  return new Map(layoutFor(host.platform).condaVirtualPackages(host.glibc));
}

/** Whether the host meets a virtual package spec; the reason when it does not. */
export function checkVirtual(spec: MatchSpec, host: Host): { ok: true } | { ok: false; reason: string } {
  const have = virtualPackages(host).get(spec.name);
  if (!have) return { ok: false, reason: `this ${host.platform} machine has no ${spec.name}` };
  if (have.version === undefined || !spec.version) return { ok: true };
  if (matchesVersion(have.version, spec.version)) return { ok: true };
  return { ok: false, reason: `this machine's ${spec.name.slice(2)} is ${have.version}` };
}
