// A manifest source's `versions` range, read in that source's own ordering: a conda version spec, a PEP 440
// specifier set, Debian relations.
import { isVersionSpec, matchesVersion } from './match-spec.js';
import { meetsAll, parseDebianRelations, type Ordering } from './order.js';
import { isPep440Specifier, satisfiesPep440 } from './pep440.js';

const SYNTAX: Record<Ordering, string> = {
  conda: 'a conda version spec, e.g. ">=1.9,<2" or "1.9.*"',
  pep440: 'a PEP 440 specifier set, e.g. ">=1.9,<2" or "~=2025.3"',
  debian: 'Debian relations, e.g. ">= 1.9, << 2"',
};

/** How a range in this ordering is written, for messages. */
export function rangeSyntax(ordering: Ordering): string {
  return SYNTAX[ordering];
}

/** Whether the range reads in the ordering (a PEP 440 range needs loadPep440() first). */
export function isRange(ordering: Ordering, range: string): boolean {
  switch (ordering) {
    case 'pep440':
      return isPep440Specifier(range);
    case 'debian':
      return parseDebianRelations(range) !== undefined;
    case 'conda':
      return isVersionSpec(range);
  }
}

/** Whether `v` is in the range (none: every version), read as isRange reads it; the manifest loader checked it reads. */
export function inRange(ordering: Ordering, v: string, range: string | undefined): boolean {
  if (range === undefined) return true;
  switch (ordering) {
    case 'pep440':
      return satisfiesPep440(v, range);
    case 'debian':
      return meetsAll(v, parseDebianRelations(range) ?? [], 'debian');
    case 'conda':
      return matchesVersion(v, range);
  }
}
