// The registry of source kinds: what a manifest's `"kind"` names. Every other module asks this registry; none tells
// kinds apart itself. A new kind is its module (kind.ts says what it provides), one line in KINDS, and its name in
// names.ts (the CLI's option table reads that alone, so that a start loads none of the kinds).
import { XpuError } from '../base/errors.js';
import type { PlannedArchive, SourceKind } from '../records/archive.js';
import type { Ordering } from '../versions/order.js';
import { apt } from './apt.js';
import { conda } from './conda.js';
import { github } from './github.js';
import { KIND_NAMES } from './names.js';
import type { Kind } from './kind.js';
import { pypi } from './pypi.js';
import { url } from './url.js';

export type { SourceKind } from '../records/archive.js';
export type { Kind, Resolution, SourceContext, SkippedPackage, ClosureResult, ClosureNotes } from './kind.js';
export { NotAvailable } from './kind.js';

/** In the order `--source` lists them. */
const KINDS = [conda, pypi, url, apt, github] as const;

/** A manifest source of any kind (each kind's module declares its own fields). */
export type SourceSpec = (typeof KINDS)[number] extends infer K ? (K extends Kind<infer S> ? S : never) : never;

const ALL: readonly Kind<SourceSpec>[] = KINDS;

export const SOURCE_KINDS: readonly SourceKind[] = ALL.map((k) => k.name);
if (SOURCE_KINDS.join() !== KIND_NAMES.join()) {
  throw new XpuError('INTERNAL', `kinds/names.ts lists ${KIND_NAMES.join(', ')} but the registry has ${SOURCE_KINDS.join(', ')}`, { details: {} });
}

/** The kind of that name, or undefined (a receipt or lockfile from another version may name one this one lacks). */
export function findKind(name: string): Kind<SourceSpec> | undefined {
  return ALL.find((k) => k.name === name);
}

/** The kind of a source the manifests validated: one of the registry's. */
export function kindOf(name: SourceKind): Kind<SourceSpec> {
  const k = findKind(name);
  if (!k) throw new XpuError('INTERNAL', `no source kind "${name}"`, { details: { kind: name }, hints: [`kinds: ${SOURCE_KINDS.join(', ')}`] });
  return k;
}

/** The ordering of a kind's versions; a name this version lacks (an older receipt's) reads as plain release numbers. */
export const orderingOf = (name: SourceKind): Ordering => findKind(name)?.ordering ?? 'conda';

/** The kind that fetches this archive itself (its URL has that kind's scheme), or undefined for an HTTP or file URL. */
export function ownFetcherOf(archive: Pick<PlannedArchive, 'url'>): NonNullable<Kind['fetcher']> | undefined {
  return ALL.find((k) => k.fetcher && archive.url.startsWith(k.fetcher.scheme))?.fetcher;
}
