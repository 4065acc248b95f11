// An archive a plan names: concrete URL, hash and size, ready for fetch and install; data every stage passes on.
import type { ArchiveFormat } from '../formats/index.js';

/** A source kind's name, one of the registry's (kinds/index.ts); only kinds/ tells them apart. */
export type SourceKind = string;

/** Members under `from` (a path prefix; `*` matches one segment) land under `to` in the prefix. */
export interface MapRule {
  from: string;
  to: string;
  /** Taken only when the request opts in with the flag of that name (`"include-loader-dll"`); otherwise left out. */
  optIn?: 'include-loader-dll';
}

export interface PlannedArchive {
  package: string;
  version: string;
  build?: string;
  filename: string;
  /** http(s) or file: URL, or a URL of a scheme one source kind fetches itself (kinds/: `fetcher`). */
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
   * packages' binaries need (plan/runtime-libraries.ts). `install` is absent until that is decided, with why.
   */
  runtime?: { install?: boolean; why?: string };
}

/** Archives with the size verified on download (by sha256) in place of what the index said, which may be nothing. */
export function withVerifiedSizes(archives: PlannedArchive[], verified: ReadonlyMap<string, number>): PlannedArchive[] {
  return archives.map((a) => (verified.has(a.sha256) ? { ...a, size: verified.get(a.sha256)! } : a));
}
