// What a component contributes to a prefix besides its archives' files, by the roles its manifest names
// (`"roles": ["ze-loader"]`): files generated for it, variables the env files export, and whether setup builds,
// probes and smoke-tests through it. A role is one object; the registry (index.ts) lists them.
import type { PlatformLayout } from '../platform/types.js';

/** Where a role's contribution lands: the prefix, the target's layout, and the component that has the role. */
export interface RoleTarget {
  prefix: string;
  layout: PlatformLayout;
  /** The version of the component that has the role (installed from a source). */
  version?: string;
  /** The version of the Level Zero loader the prefix installs (its ze-loader component), if it has one. */
  loaderVersion?: string;
  /** The files that stand for a source's archives when a role's files come from build/ (the reference driver). */
  built?: string[];
  /**
   * The machine's own OpenCL ICD files (name and text), which a prefix vendors directory repeats: OCL_ICD_VENDORS
   * replaces the system's directory, and the ICDs already there (PoCL, say) must stay visible.
   */
  systemIcds?: { name: string; text: string }[];
  /** The drivers the loader would open on its own that are installed beside it (a driver choice lists them too). */
  otherDrivers?: string[];
}

/** A directory of the prefix put in front of a search-path variable (`PATH`: `bin`). */
export interface SearchPath {
  name: string;
  dir: string;
}

/** A file a role writes into the prefix. `reroot`: a file of that path the archives shipped is kept, rewritten by it. */
export interface RoleFile {
  path: string;
  text: string;
  reroot?: (shipped: string) => string;
}

/**
 * A program the role's users run by a plain name that a package may ship only under a versioned one (compute-runtime
 * installs `ocloc-26.27.1`; the plain `ocloc` is an update-alternatives link its postinst makes, which unpacking never
 * runs): the prefix gets `path`, pointing at the newest file matching `versioned` (its first group is the version).
 */
export interface RoleAlias {
  path: string;
  versioned: RegExp;
}

/** What doctor says of a variable's value: as machine/env-traps.ts says it of the others. */
export interface RoleTrap {
  variable: string;
  value: string;
  severity: 'fail' | 'warn' | 'info';
  message: string;
  fix?: string;
}

/**
 * The variable through which the loader is told which driver libraries to open in place of its own search: what the
 * probe reads of it (the list) and what doctor checks of a value.
 */
export interface DriverChoice {
  /** The variable's name, for messages and fixes. */
  readonly variable: string;
  /** The libraries a value lists, as the loader splits it (empty entries kept); undefined when unset. */
  entries(env: Readonly<Record<string, string | undefined>> | undefined): string[] | undefined;
  /** The entry that is this project's CPU reference driver, when one is. */
  referenceDriver(value: string | undefined): string | undefined;
  /** What doctor reports of a value: a crash-causing empty entry, the reference driver chosen, the default list replaced. */
  traps(value: string): RoleTrap[];
}

export interface Role {
  /** As manifests write it. */
  readonly name: string;
  /** For people: "the Level Zero loader". */
  readonly title: string;
  /** At most one manifest takes it (the loader setup probes through). */
  readonly single?: boolean;
  /** It drives the host's Intel GPU: a request naming no component gets it where that GPU has no usable driver. */
  readonly drivesHostGpu?: boolean;
  /** Files written into the prefix for it (pkg-config, CMake, an ICD file). */
  files?(t: RoleTarget): RoleFile[];
  /** Variables the prefix's env files export for it (a driver choice, a vendors directory). */
  env?(t: RoleTarget): Record<string, string>;
  /** Plain names the prefix must have for files a package ships only under a versioned name. */
  aliases?(layout: PlatformLayout): RoleAlias[];
  /** Prefix directories its programs or libraries must be found in, beyond the platform's own search paths. */
  searchPaths?: readonly SearchPath[];
  /** Setup builds, probes and smoke-tests only when a component of this role is installed; this says why not. */
  readonly verifiesThrough?: { absent: string };
  /** The driver libraries of it the loader opens on its own; a driver choice that replaces the loader's search lists them. */
  loaderDrivers?(t: RoleTarget): string[];
  /** The variable that chooses the loader's drivers, when this role is told through one (the probe and doctor read it). */
  readonly choice?: DriverChoice;
}
