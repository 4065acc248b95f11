// Version ordering and ranges for conda, PEP 440 and Debian version strings, via semver where it fits.
import semver from 'semver';

/** Debian epochs and revisions (1:1.8.12-1) and conda/PEP 440 extras reduce to their x.y.z core. */
export function coreVersion(v: string): string | undefined {
  const noEpoch = v.replace(/^\d+:/, '').replace(/^v/, '');
  return semver.coerce(noEpoch)?.version;
}

export function compareVersions(a: string, b: string): number {
  const ca = coreVersion(a);
  const cb = coreVersion(b);
  if (ca && cb && ca !== cb) return semver.compare(ca, cb);
  return a.localeCompare(b, 'en', { numeric: true });
}

export function satisfies(v: string, range: string | undefined): boolean {
  if (!range) return true;
  const c = coreVersion(v);
  return !!c && semver.satisfies(c, range);
}

export function isPreRelease(v: string): boolean {
  return /(a|b|rc|dev|alpha|beta)\d*$/i.test(v.replace(/^\d+:/, '').split('+')[0] ?? '');
}
