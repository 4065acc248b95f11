// A request as a receipt, lockfile or bundle holds it, read into the current shape.
import type { SourceKind } from './archive.js';
import type { KindIndexes, SetupRequest } from './plan.js';

/**
 * The fields an xpu-setup from before requests held their indexes by kind wrote them in, each with the kind it named.
 * Frozen: a kind given an option since then was only ever written under `indexes`.
 */
const FIELDS_BEFORE_INDEXES: readonly [field: string, kind: SourceKind][] = [
  ['condaChannels', 'conda'],
  ['indexUrl', 'pypi'],
  ['githubUrl', 'github'],
];

/** The request a document holds; one from before `indexes` is read into it, so an older prefix's bare re-run asks the same. */
export function recordedRequest(raw: SetupRequest): SetupRequest {
  if (raw.indexes && typeof raw.indexes === 'object') return raw;
  const rest: Record<string, unknown> = { ...raw };
  const indexes: KindIndexes = {};
  for (const [field, kind] of FIELDS_BEFORE_INDEXES) {
    const v = rest[field];
    delete rest[field];
    const values = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && !!x);
    if (values.length) indexes[kind] = values;
  }
  return { components: raw.components, sources: raw.sources, indexes, ...rest } as SetupRequest;
}
