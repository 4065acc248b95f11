// The url source kind: pinned archives at fixed URLs (the Level Zero Windows SDK zip); the manifest's hash is the only truth.
import { formatOf } from '../formats/index.js';
import { XpuError } from '../base/errors.js';
import { isStr } from './closure.js';
import { indexRoot, type Kind, type Resolution, type SourceBase } from './kind.js';

export interface UrlSourceSpec extends SourceBase {
  kind: 'url';
  package: string;
  version: string;
  url: string;
  sha256: string;
  size?: number;
}

export function resolveUrl(spec: UrlSourceSpec): Resolution {
  const filename = new URL(spec.url).pathname.split('/').pop() ?? spec.url;
  const format = formatOf(filename);
  if (!format) {
    throw new XpuError('BAD_MANIFEST', `cannot tell the archive format of ${spec.url}`, { hints: ['name the file with its extension (.zip, .tar.gz, ...)'] });
  }
  return {
    source: 'url',
    origin: spec.url,
    version: spec.version,
    archives: [{ package: spec.package, version: spec.version, filename, url: spec.url, sha256: spec.sha256, size: spec.size, format, map: spec.map }],
  };
}

export const url: Kind<UrlSourceSpec> = {
  name: 'url',
  // Pinned URLs carry plain release numbers, which conda's order handles.
  ordering: 'conda',
  validate(s, bad) {
    if (!isStr(s.url) || !isStr(s.version) || !isStr(s.package)) throw bad('url sources need "package", "version" and "url"');
    if (!/^[0-9a-f]{64}$/.test(s.sha256 ?? '')) throw bad('url sources need a pinned lowercase hex "sha256"');
  },
  resolve: async (spec) => resolveUrl(spec),
  describe: (spec) => `url ${spec.url}`,
  indexes: (spec) => [indexRoot(new URL(spec.url).origin)],
  recordedIndexes: (origin) => (/^https?:/.test(origin) ? [indexRoot(new URL(origin).origin)] : []),
};
