// What a prefix records about itself (xpu-setup.receipt.json): prefix/receipt.ts reads it, prefix/prefix-writer.ts
// writes it, and prefix/prefix-state.ts is the one module that reads it for a run.
import type { TargetPlatform } from '../platform/types.js';
import type { LockedPlatform } from './lock.js';
import type { BelowFloor, SetupRequest } from './plan.js';

export const RECEIPT_NAME = 'xpu-setup.receipt.json';
export const RECEIPT_SCHEMA = 1;

/** A file the receipt records that the prefix no longer holds as recorded (prefix/verify.ts finds them). */
export interface PrefixProblem {
  path: string;
  /** outside: the receipt names a path that leaves the prefix (`..`, absolute, through a link); it is never read. */
  problem: 'missing' | 'changed' | 'outside';
}

export interface ReceiptFile {
  /** Path inside the prefix, always with forward slashes. */
  path: string;
  sha256: string;
  size: number;
  /**
   * Modification time as installed. A file whose size and mtime still match is taken as unchanged without being
   * read again (`--verify` reads every byte); absent in receipts older than this field, which are hashed.
   */
  mtimeMs?: number;
  /** For symlinks: the link target as written (relative), and no hash. */
  link?: string;
}

/**
 * What build, probe and smoke answered, and the fingerprint of everything those answers depend on (see
 * probe/inputs.ts). A later run with the same fingerprint reports this answer instead of asking again.
 */
export interface ReceiptProof {
  /** sha256 of the inputs: the prefix's plan, the driver libraries the loader would load (size and mtime), ... */
  inputs: string;
  at: string;
  /** The smoke kernel ran and passed under these inputs. */
  smoke: boolean;
  /** The verify stage's result as it was reported; its shape is pipeline/probe.ts's VerifyResult. */
  verify: unknown;
}

export interface ReceiptArchive {
  component: string;
  source: string;
  package: string;
  version: string;
  url: string;
  sha256: string;
  size: number;
}

export interface ReceiptComponent {
  name: string;
  version: string;
  source: string;
  /** What this version lacks compared with current releases, when the source is a fallback. */
  notes: string[];
  /** Default sources that failed before this one was used. */
  fallbackFrom?: string[];
  /** No reachable source met the manifest's recommended floor: what this version lacks, and which sources were not reached. */
  belowFloor?: BelowFloor;
}

export interface Receipt {
  schema: typeof RECEIPT_SCHEMA;
  tool: { name: 'xpu-setup'; version: string };
  platform: TargetPlatform;
  prefix: string;
  installedAt: string;
  /** sha256 of the plan's content that determines the prefix: equal key, nothing to do. */
  planKey: string;
  components: ReceiptComponent[];
  archives: ReceiptArchive[];
  files: ReceiptFile[];
  /** Probe results written after install (Triton variables), when a probe succeeded. */
  probe?: { arch?: string; extensions?: string[]; device?: string; driver?: string };
  /** Libraries the build stage made in the prefix (and their stamps), by role; also listed in `files`. */
  builds?: Partial<Record<'addon' | 'refdriver', string[]>>;
  /** Extra env vars the env files export (the reference driver's driver choice, say). */
  extraEnv?: Record<string, string>;
  /** Prefix directories the components' roles put in front of search paths beyond the platform's (ocloc: PATH bin). */
  searchPaths?: { name: string; dir: string }[];
  /** What was asked for: a bare re-run repeats it. */
  request?: SetupRequest;
  /** The installed plan as lockfile data: lets a run with no index (or --offline) verify and reuse it. */
  plan?: LockedPlatform;
  /**
   * Components the request asked for (the default: every one) that no source could provide, with every source tried
   * and why: doctor's fix for a missing one is then what could work here, not the same run again.
   */
  skipped?: { name: string; tried: string[]; unreached: string[] }[];
  /** The last build, probe and smoke answers and their inputs; absent until a verification ran. */
  proof?: ReceiptProof;
}
