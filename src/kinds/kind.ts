// What a source kind is to the rest of the code: one object (the registry in index.ts lists them) that reads its
// manifest fields, resolves, closes over dependencies, fetches what it alone can, and says where it reads from.
import type { CachedFile, DownloadCache } from '../cache/store.js';
import type { Deps } from '../base/deps.js';
import type { Host } from '../platform/types.js';
import type { MapRule, PlannedArchive, SourceKind } from '../records/archive.js';
import type { KindIndexes } from '../records/plan.js';
import type { Reporter } from '../base/reporter.js';
import type { Gateway } from '../index/gateway.js';
import type { Constraint, Ordering } from '../versions/order.js';
import type { Requirement } from '../versions/resolve.js';

/** A dependency not to follow (its files are not installed), with the reason people read in the plan. */
export interface SkippedPackage {
  package: string;
  reason: string;
}

/** What every manifest source has, whatever its kind. */
export interface SourceBase {
  kind: SourceKind;
  map: MapRule[];
  /**
   * A range the version must be in, read in the kind's own ordering: a conda version spec (`>=1.9,<2`), a PEP 440
   * specifier set for PyPI, Debian relations for apt (`>= 1.9, << 2`).
   */
  versions?: string;
}

/** What a source resolves to: the version it chose and its archives. */
export interface Resolution {
  source: SourceKind;
  /** Where it came from, for people: a channel or index URL, or "Debian/Ubuntu apt". */
  origin: string;
  version: string;
  archives: PlannedArchive[];
  /**
   * Newer versions of this source left before download because their metadata says they cannot load here, each in a
   * few words, ending with what the host has: `26.31.39395.13 needs glibc 2.43`, `this host has glibc 2.36`.
   */
  turnedAway?: string[];
}

export interface SourceContext {
  host: Host;
  /** The indexes the run named in place of the manifests' own: each kind reads its own entry (names.ts: KIND_OPTIONS). */
  indexes: KindIndexes;
  deps: Deps;
  reporter: Reporter;
  /** Version floors and pins of the component being resolved, checked in the source's own version order. */
  constraints?: Constraint[];
  /** The run's index reader, built where the run starts and shared by every component and platform: every index read goes through it. */
  gateway: Gateway;
  /**
   * Per kind, every package any component of the run may ask of it (Kind.runNames): an index read whole (a conda
   * channel without shards) is read once for all of them, however many components read it.
   */
  runNames?: ReadonlyMap<SourceKind, readonly string[]>;
}

/** The source has no matching package (as opposed to being unreachable). */
export class NotAvailable extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** What a closure adds to the plan besides its archives. */
export interface ClosureNotes {
  /** Runtime libraries the packages name that the source cannot give, left to the host (`libstdcxx >=13, needed by level-zero 1.20.6`). */
  runtime: string[];
  /** Packages the manifest says not to follow, with its reason. */
  skipped: string[];
}

/** What a closure says besides its archives and notes: the older version it went back to, and why. */
export interface ClosureResult {
  archives: PlannedArchive[];
  notes: ClosureNotes;
  /** Set when the source's choice could not be completed: the component's version now, and why the newer was left. */
  olderRoot?: { version: string; why: string };
  /** Set when the source's choice was left because its record says it cannot load here (Resolution.turnedAway). */
  turnedAway?: string[];
}

/**
 * One kind of source. Methods take the kind's own manifest entry `S`; the registry hands each kind only its own.
 * Optional parts are what a kind may lack: a dependency closure (a pinned URL is complete), the values of an option
 * that names its index, a fetcher of its own (most archives are fetched over HTTP by fetch/).
 */
export interface Kind<S extends SourceBase = SourceBase> {
  /** As manifests, `--source`, plans and receipts write it. */
  readonly name: S['kind'];
  /** The ordering its version strings follow (versions/order.ts). */
  readonly ordering: Ordering;
  /** Checks the manifest fields this kind adds; `bad(what)` is the error naming the file and the entry. */
  validate(spec: S, bad: (what: string) => Error): void;
  /** The newest fitting version and its archives, or NotAvailable. */
  resolve(spec: S, ctx: SourceContext): Promise<Resolution>;
  /** Everything the chosen packages need, read from the same index (the resolver's provider lives here). */
  closure?(spec: S, r: Resolution, ctx: SourceContext, component: string, pins: Requirement[]): Promise<ClosureResult>;
  /** The source for people, with the run's named indexes in place: `conda https://…, https://…`. */
  describe(spec: S, named: KindIndexes): string;
  /** The index roots setup would contact for this entry (what the doctor checks), with the named indexes in place. */
  indexes(spec: S, named: KindIndexes): string[];
  /** The index roots of an origin a receipt recorded for this kind. */
  recordedIndexes(origin: string): string[];
  /** The packages of this entry that every read of the kind's index should ask for at once (SourceContext.runNames). */
  runNames?(spec: S): string[];
  /** The values of the option that names this kind's index (names.ts: KIND_OPTIONS) that name a recorded origin again. */
  optionValues?(origin: string): string[];
  /** Archives whose URL starts with `scheme` are fetched by the kind itself, into the verified cache. */
  fetcher?: {
    scheme: string;
    fetch(archive: PlannedArchive, cache: DownloadCache, deps: Deps): Promise<CachedFile>;
    /** All of a plan's archives of this scheme in one go (one apt-get download): each archive's sha256 to its file. */
    fetchMany?(archives: readonly PlannedArchive[], cache: DownloadCache, deps: Deps): Promise<Map<string, CachedFile>>;
  };
}

/** An index root as the doctor checks it: one trailing slash. */
export const indexRoot = (url: string): string => url.replace(/\/*$/, '/');
