// Version ordering and ranges for conda, PEP 440 and Debian version strings, via semver where it fits.
// The three functions on their own: semver's index loads every module of the package (~15 ms at each start).
import coerce from 'semver/functions/coerce.js';
import compare from 'semver/functions/compare.js';
import semverSatisfies from 'semver/functions/satisfies.js';

/** Debian epochs and revisions (1:1.8.12-1) and conda/PEP 440 extras reduce to their x.y.z core. */
export function coreVersion(v: string): string | undefined {
  const noEpoch = v.replace(/^\d+:/, '').replace(/^v/, '');
  return coerce(noEpoch)?.version;
}

export function compareVersions(a: string, b: string): number {
  const ca = coreVersion(a);
  const cb = coreVersion(b);
  if (ca && cb && ca !== cb) return compare(ca, cb);
  return a === b ? 0 : a.localeCompare(b, 'en', { numeric: true });
}

export function satisfies(v: string, range: string | undefined): boolean {
  if (!range) return true;
  const c = coreVersion(v);
  return !!c && semverSatisfies(c, range);
}

export function isPreRelease(v: string): boolean {
  return /(a|b|rc|dev|alpha|beta)\d*$/i.test(v.replace(/^\d+:/, '').split('+')[0] ?? '');
}
