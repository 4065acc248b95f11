// What a source resolves to: concrete archives with URL, hash and size, ready for fetch and install.
import type { Deps } from '../deps.js';
import type { ArchiveFormat } from '../formats/index.js';
import type { Host } from '../host/types.js';
import type { MapRule, SourceKind } from '../manifest/schema.js';
import type { Reporter } from '../reporter.js';
import type { Constraint } from '../versions/order.js';
import type { Gateway } from './gateway.js';

export interface PlannedArchive {
  package: string;
  version: string;
  build?: string;
  filename: string;
  /** http(s) URL, or `apt:<package>=<version>` for the apt source. */
  url: string;
  sha256: string;
  size?: number;
  format: ArchiveFormat;
  map: MapRule[];
  /** Why a dependency is there: `intel-cmplr-lib-ur 2025.3.1: umf ==1.0.*`; absent for the packages the component names. */
  requiredBy?: string[];
  /** conda: the record's depends and constrains, as the index gave them (a bundle's repodata carries them on). */
  depends?: string[];
  constrains?: string[];
  /**
   * A runtime library package (libstdcxx, libgcc, ...): installed only where this machine lacks what the other
   * packages' binaries need (plan/runtime.ts). `install` is absent until that is decided, with why.
   */
  runtime?: { install?: boolean; why?: string };
}

/** Archives with the size verified on download (by sha256) in place of what the index said, which may be nothing. */
export function withVerifiedSizes(archives: PlannedArchive[], verified: ReadonlyMap<string, number>): PlannedArchive[] {
  return archives.map((a) => (verified.has(a.sha256) ? { ...a, size: verified.get(a.sha256)! } : a));
}

export interface Resolution {
  source: SourceKind;
  /** Where it came from, for people: a channel or index URL, or "Debian/Ubuntu apt". */
  origin: string;
  version: string;
  archives: PlannedArchive[];
}

export interface SourceContext {
  host: Host;
  deps: Deps;
  reporter: Reporter;
  condaChannels?: string[];
  indexUrl?: string;
  /** Version floors and pins of the component being resolved, checked in the source's own version order. */
  constraints?: Constraint[];
  /** The run's index reader, shared by every component, platform and command. */
  gateway?: Gateway;
  /**
   * Every conda package any component of the run may ask for: a channel without shards is scanned once for all of
   * them, however many components read it.
   */
  condaPackages?: string[];
}

/** The source has no matching package (as opposed to being unreachable). */
export class NotAvailable extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}
