// A plan as lockfile data: what `lock` and `bundle` write and a receipt records (plan/lockfile.ts makes and reads it).
import type { TargetPlatform } from '../platform/types.js';
import type { PlannedArchive, SourceKind } from './archive.js';
import type { SetupRequest } from './plan.js';

export const LOCKFILE_SCHEMA = 1;

export interface LockedComponent {
  name: string;
  source: SourceKind;
  origin: string;
  version: string;
  archives: PlannedArchive[];
  constraints?: string[];
  fallbackFrom?: string[];
  /** Runtime library packages this machine's own libraries stood in for, with why (a receipt's recorded plan). */
  leftToHost?: PlannedArchive[];
}

export interface LockedPlatform {
  planKey: string;
  /**
   * sha256 over every field of the entry that decides bytes or placement (each component's source, origin, version,
   * constraints, and each archive's URL, size, sha256, format, map...), as written: a hand edit of any of them no
   * longer matches. Lockfiles and bundles must carry it; a receipt's recorded plan is checked when it has one.
   */
  key?: string;
  components: LockedComponent[];
}

export interface Lockfile {
  schema: typeof LOCKFILE_SCHEMA;
  tool: { name: 'xpu-setup'; version: string };
  request: SetupRequest;
  platforms: Partial<Record<TargetPlatform, LockedPlatform>>;
}
