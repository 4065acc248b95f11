// The plan's data, as one stage hands it to the next: the request, the plan of each component, and what a plan records
// about the machine and Python environment it was made for. Types only (and the plan's schema number), so every module
// of the planner, and every stage after it, can name them without importing the planner.
import type { TargetPlatform } from '../platform/types.js';
import type { PlannedArchive, SourceKind } from './archive.js';

export const PLAN_SCHEMA = 1;

/** A file a component provides (from its manifest), checked in the staged tree before the swap. */
export interface Provided {
  path: string;
  required: boolean;
  /** Said when the file is absent (required: error; optional: a note). */
  missing?: string;
}

/**
 * Index roots by source kind, as the kind's option named them (kinds/names.ts: KIND_OPTIONS), in the order given. One
 * list for every kind, whether its option takes one value or several, so merging, comparing and repeating them is one
 * rule for all; a kind without an entry reads its manifests' own indexes.
 */
export type KindIndexes = Partial<Record<SourceKind, string[]>>;

/** What the user asked for: recorded in the receipt, repeated by a bare re-run, merged with new flags (request.ts). */
export interface SetupRequest {
  /** Components named explicitly; empty means every component in the manifests. */
  components: string[];
  /** Source kinds in order of preference; empty means the manifest's order. */
  sources: SourceKind[];
  /** The indexes named in place of the manifests' own, by kind (`--conda-channel`: `conda`); see KindIndexes. */
  indexes: KindIndexes;
  /** Version constraints as written (`level-zero>=1.9`); manifest defaults are not copied here. */
  requires: string[];
  refdriver: boolean;
  /** `--match-torch[=PYTHON]`: pin the runtime packages to what that Python environment's torch runs with. */
  matchTorch?: MatchTorchRequest;
  /** `--include-loader-dll`: the map rules a manifest marks `"optIn": "include-loader-dll"` are taken too. */
  includeLoaderDll?: true;
  /** `--gpu`: plan for these GPUs (families `bmg`, PCI ids `8086:e20b`) in place of this machine's. */
  gpus?: string[];
}

export type AttemptOutcome = 'chosen' | 'unreachable' | 'not-found' | 'error';

export interface SourceAttempt {
  source: SourceKind;
  outcome: AttemptOutcome;
  reason: string;
  /** What the failure itself says to do, where that is specific (a certificate not accepted, a proxy). */
  hints?: string[];
}

export interface PlannedComponent {
  name: string;
  /** Named with --component: then "no source" is an error rather than a note. */
  explicit: boolean;
  status: 'planned' | 'unavailable';
  /** From the manifest: what the component is to the stack (roles/), such as the loader the probe and smoke run through. */
  roles?: string[];
  source?: SourceKind;
  origin?: string;
  version?: string;
  archives: PlannedArchive[];
  provides: Provided[];
  notes: string[];
  attempts: SourceAttempt[];
  /** The version constraints this component was resolved under. */
  constraints?: string[];
  /** Default sources that failed before the chosen one: said loudly and recorded in the receipt. */
  fallbackFrom?: string[];
  /** No reachable source met the manifest's recommended floor: this older version was planned instead. */
  belowFloor?: BelowFloor;
  /** Runtime libraries the packages depend on that the source cannot give: left to the host (`libstdcxx >=13 (needed by level-zero 1.20.6)`). */
  runtime?: string[];
  /** Runtime packages of the closure that this machine's own libraries stand in for, each with why (plan/runtime-libraries.ts). */
  leftToHost?: PlannedArchive[];
  /** Dependencies the manifest says not to install, with its reason. */
  skipped?: string[];
  /** Why this was not the component's first candidate, when it was not (plan/choose.ts). */
  choice?: ChoiceReason;
}

/** A choice that was not the first candidate, in one line and as data. */
export interface ChoiceReason {
  /** `unified-runtime 2025.3.2 from pypi (2026.2.0 (pypi) needs level-zero>=1.25; the newest reachable is 1.8.12 (apt))`. */
  line: string;
  /** The candidates turned away before it, each with why. */
  rejected: { candidate: string; why: string }[];
  /** What another component's choice needs of this one, and why, when that moved it. */
  neededBy?: string[];
}

/** What a component installed below its manifest's recommended floor misses, and why nothing newer was planned. */
export interface BelowFloor {
  /** The recommended constraints it does not meet (`level-zero>=1.9`). */
  floor: string[];
  /** What this version lacks, from the manifest's feature list (`what, new in 1.9.0`). */
  lacks: string[];
  /** Sources that could not be reached (each "kind origin: why"); a newer version may be there. */
  unreached: string[];
}

/** Level Zero / UR already on this machine, outside the prefix: shown so people see what the prefix adds. */
export interface ExistingInstalls {
  zeLoader?: { path: string; version?: string };
  zeHeaders: { includeDir: string; apiVersion?: string; version?: string; hasIpVersionExt: boolean }[];
  urLoader?: { path: string };
}

export interface InstallPlan {
  schema: typeof PLAN_SCHEMA;
  tool: { name: 'xpu-setup'; version: string };
  platform: TargetPlatform;
  host: { native: boolean; distro?: string; glibc?: string };
  prefix: string;
  cacheDir: string;
  components: PlannedComponent[];
  existing?: ExistingInstalls;
  /** Equal keys mean an equal prefix: used to make a repeated run a no-op. */
  planKey: string;
  /** The request this plan answers; recorded in the receipt so a bare re-run repeats it. */
  request?: SetupRequest;
  /** The receipt whose recorded request this plan's request extends (what was not said on the command line). */
  extends?: string;
  /** Installed components this run takes out (`--remove`). */
  remove?: string[];
  /** Where the plan came from when no index was asked: a lockfile, a bundle, or the receipt of the last run. */
  from?: { kind: 'lock' | 'bundle' | 'receipt'; path: string; reason?: string };
  /** Set when this is the plan an earlier run made at this time for the same request, reused without asking an index. */
  reusedFrom?: string;
  /** Things the user should read: what was repeated from the recorded request, fallbacks. */
  notes?: string[];
  /** `--match-torch`: the interpreter read and the exact versions the plan keeps. */
  torch?: TorchMatch;
  /** What the plan did about the GPU driver component for this host's Intel GPU, and why. */
  gpuDriver?: GpuDriverChoice;
}

/** An Intel GPU of the host the plan was made on, as sysfs shows it. */
export interface HostGpu {
  /** `Intel(R) Arc(tm) B580 Graphics (bmg, 8086:e20b)` */
  name: string;
  pciId: string;
  family?: string;
  /** The kernel driver bound to it now (i915, xe), if any. */
  kernelDriver?: string;
}

/** The host's Intel GPUs and the Level Zero GPU driver a program there gets from outside the prefix. */
export interface HostGpus {
  gpus: HostGpu[];
  /** `libze_intel_gpu.so.1` as the library search finds it, with the version its file name carries. */
  driver?: { path: string; version?: string };
  tried: string[];
  /** The GPUs were named with `--gpu` (another machine's): none was read here, and their driver is not known. */
  named?: true;
}

/**
 * The GPU driver component and this host's GPU: `added` to a request naming no component (the GPU has no usable
 * driver); `left-alone` (the host's driver drives it); `not-needed` (no Intel GPU, or none Level Zero drives);
 * `not-asked` (components were named without it); `asked` (named or installed); `dropped` (added, but no source has a
 * version that drives the GPU).
 */
export interface GpuDriverChoice {
  component: string;
  decision: 'added' | 'left-alone' | 'not-needed' | 'not-asked' | 'asked' | 'dropped';
  why: string;
  /** The versions that drive every Intel GPU here (`>=24.31.30508.5`), asked of the component's sources. */
  needs?: string[];
  /** Each need in words, by the GPU that sets it (`compute-runtime drives Arc B580 (BMG, 0xe20b) from 24.31.30508.5`). */
  said?: string[];
  host: HostGpus;
}

/** `--match-torch[=PYTHON]` as the request records it: the interpreter named, or none for the active one. */
export interface MatchTorchRequest {
  python?: string;
}

/** One exact version the plan must keep, and where it was read. */
export interface TorchPin {
  name: string;
  version: string;
  /** `installed`: importlib.metadata saw it; `torch table`: what this torch release's wheels pin. */
  from: 'installed' | 'torch table';
}

/** What `--match-torch` read and pins: shown in the plan and its JSON. */
export interface TorchMatch {
  /** The interpreter that answered (its sys.executable). */
  python: string;
  pythonVersion: string;
  /** The torch it has, when it has one (`2.10.0+xpu`). */
  torch?: string;
  /** The runtime packages it has installed, by name. */
  installed: Record<string, string>;
  pins: TorchPin[];
  /** Said to people: what was found and where each pin came from. */
  notes: string[];
}
