// The registry of component roles: what a manifest's `"roles"` names. Every other module asks this registry what a
// role contributes; a new role is its module (role.ts says what it may provide) and one line in ROLES.
import { gpuDriver } from './gpu-driver.js';
import { offlineCompiler } from './offline-compiler.js';
import { openclIcd } from './opencl-icd.js';
import type { DriverChoice, Role, RoleAlias, RoleFile, RoleTarget, RoleTrap, SearchPath } from './role.js';
import type { PlatformLayout } from '../platform/types.js';
import { zeDriver } from './ze-driver.js';

export { chosenDrivers, cleanAltDrivers, DRIVER_CHOICE, referenceDriverIn } from './ze-driver.js';
import { zeHeaders } from './ze-headers.js';
import { zeLoader } from './ze-loader.js';

export type { DriverChoice, Role, RoleAlias, RoleFile, RoleTarget, RoleTrap, SearchPath } from './role.js';

const ROLES: readonly Role[] = [zeLoader, zeHeaders, zeDriver, gpuDriver, openclIcd, offlineCompiler];

export const ROLE_NAMES: readonly string[] = ROLES.map((r) => r.name);

export function findRole(name: string): Role | undefined {
  return ROLES.find((r) => r.name === name);
}

/** Something that names roles: a manifest, a planned component. */
export interface HasRoles {
  roles?: readonly string[];
}

/** The roles a component has, from the registry (a name this version lacks, from an older plan, is left out). */
export function rolesOf(c: HasRoles): Role[] {
  return (c.roles ?? []).flatMap((n) => findRole(n) ?? []);
}

/** The roles of a manifest's `"roles"` list, or the error that names the first unknown one. */
export function checkRoles(roles: unknown, bad: (what: string) => Error): void {
  if (roles === undefined) return;
  if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string')) throw bad(`"roles" must be a list of role names (${ROLE_NAMES.join(', ')})`);
  const unknown = roles.find((r) => !findRole(r));
  if (unknown !== undefined) throw bad(`unknown role "${unknown}" (roles: ${ROLE_NAMES.join(', ')})`);
}

/** The manifest whose component drives the host's Intel GPU (the GPU driver), if one is given. */
export function hostGpuDriverOf<M extends HasRoles>(ms: readonly M[]): M | undefined {
  return ms.find((m) => rolesOf(m).some((r) => r.drivesHostGpu));
}

/** The roles more than one of these manifests claim that only one may have, each with the names claiming it. */
export function overclaimed(ms: readonly (HasRoles & { name: string })[]): { role: Role; names: string[] }[] {
  return ROLES.filter((r) => r.single).flatMap((role) => {
    const names = ms.filter((m) => m.roles?.includes(role.name)).map((m) => m.name);
    return names.length > 1 ? [{ role, names }] : [];
  });
}

/** The files the roles of these components write into the prefix, in component order. */
export function roleFiles(components: readonly (HasRoles & { version?: string })[], at: Omit<RoleTarget, 'version'>): RoleFile[] {
  return components.flatMap((c) => rolesOf(c).flatMap((r) => r.files?.({ ...at, version: c.version }) ?? []));
}

/** The variables the roles of these components export (an OpenCL vendors directory), in component order. */
export function roleEnv(components: readonly (HasRoles & { version?: string })[], at: Omit<RoleTarget, 'version'>): Record<string, string> {
  const loaderVersion = components.find((c) => rolesOf(c).includes(zeLoader))?.version;
  const target = loaderVersion ? { ...at, loaderVersion } : at;
  return Object.assign({}, ...components.flatMap((c) => rolesOf(c).map((r) => r.env?.(target) ?? {})));
}

/** The plain names the roles of these components need for files shipped under versioned ones (ocloc-26.27.1). */
export function roleAliases(components: readonly HasRoles[], layout: PlatformLayout): RoleAlias[] {
  return components.flatMap((c) => rolesOf(c).flatMap((r) => r.aliases?.(layout) ?? []));
}

/** The prefix directories the roles of these components add to search paths, each once. */
export function roleSearchPaths(components: readonly HasRoles[]): SearchPath[] {
  const all = components.flatMap((c) => rolesOf(c).flatMap((r) => r.searchPaths ?? []));
  return all.filter((p, i) => all.findIndex((q) => q.name === p.name && q.dir === p.dir) === i);
}

/** Why setup would build, probe and smoke-test nothing: no planned component has a role it verifies through. */
export function verifyAbsent(components: readonly HasRoles[]): string | undefined {
  const through = ROLES.filter((r) => r.verifiesThrough);
  if (components.some((c) => rolesOf(c).some((r) => r.verifiesThrough))) return undefined;
  return through[0]?.verifiesThrough?.absent ?? 'no component setup verifies through was installed';
}

/**
 * The variables that choose these driver files (built, not installed from a source) for the loader. The choice
 * replaces the loader's own search, so the drivers of `installed` components it would have found (the GPU driver)
 * are listed after them.
 */
export function driverChoiceEnv(built: string[], at: Omit<RoleTarget, 'version' | 'built' | 'otherDrivers'>, installed: readonly HasRoles[] = []): Record<string, string> {
  const otherDrivers = installed.flatMap((c) => rolesOf(c).flatMap((r) => r.loaderDrivers?.(at) ?? []));
  return zeDriver.env!({ ...at, built, otherDrivers: otherDrivers.filter((d, i) => !built.includes(d) && otherDrivers.indexOf(d) === i) });
}

/** The variable that tells the loader which drivers to open, as the probe and doctor read it. */
export function driverChoice(): DriverChoice {
  return ROLES.find((r) => r.choice)!.choice!;
}

/** The driver choice an environment makes: the variable's name, and the libraries it lists when it is set. */
export function driversChosenIn(env: Readonly<Record<string, string | undefined>> | undefined): { variable: string; entries?: string[] } {
  const c = driverChoice();
  const entries = c.entries(env);
  return entries ? { variable: c.variable, entries } : { variable: c.variable };
}

/** The variables roles judge themselves (the driver choice): other scans of the environment leave them out. */
export function roleVariables(): string[] {
  return ROLES.flatMap((r) => (r.choice ? [r.choice.variable] : []));
}

/** What doctor says of the role variables an environment sets (a driver choice with an empty entry, say). */
export function roleEnvTraps(env: Readonly<Record<string, string | undefined>>): RoleTrap[] {
  return ROLES.flatMap((r) => {
    const v = r.choice ? env[r.choice.variable] : undefined;
    return r.choice && v !== undefined ? r.choice.traps(v) : [];
  });
}
