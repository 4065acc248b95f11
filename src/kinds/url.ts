// Pinned archives at fixed URLs (the Level Zero Windows SDK zip): the manifest's hash is the only truth.
import { formatOf } from '../formats/index.js';
import { XpuError } from '../errors.js';
import type { UrlSourceSpec } from '../manifest/schema.js';
import type { Resolution } from '../sources/types.js';

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
