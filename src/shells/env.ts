// The environment a prefix needs (its variables), what loading it does to an environment, and its env files, each
// written by its shell's table (index.ts).
import { createHash } from 'node:crypto';
import type { PlatformLayout, TargetPlatform } from '../platform/types.js';
import { layoutFor } from '../platform/index.js';
import { EnvVars } from '../base/env-names.js';
import type { Receipt } from '../records/receipt.js';
import { shellTable, type Shell } from './index.js';
import { msysPath, type EnvChange, type EnvVar } from './shell.js';

/** Joins prefix-relative parts with the separator the prefix path itself uses. */
export function prefixJoin(prefix: string, platform: TargetPlatform, ...parts: string[]): string {
  const sep = layoutFor(platform).prefixSeparator(prefix);
  return [prefix.replace(/[\\/]+$/, ''), ...parts].join(sep);
}

export function envVars(prefix: string, platform: TargetPlatform, extra: Record<string, string> = {}, paths: readonly { name: string; dir: string }[] = []): EnvVar[] {
  const j = (...p: string[]) => prefixJoin(prefix, platform, ...p);
  const vars: EnvVar[] = [
    { name: EnvVars.LEVEL_ZERO_V1_SDK_PATH, value: prefix, mode: 'set' },
    { name: EnvVars.ZE_PATH, value: prefix, mode: 'set' },
  ];
  for (const v of layoutFor(platform).searchPathVars) {
    vars.push({ name: v.name, value: j(v.dir), mode: 'prepend', ...(v.runtime ? { runtime: true } : {}) });
  }
  for (const p of paths) {
    if (!vars.some((v) => v.name === p.name && v.value === j(p.dir))) vars.push({ name: p.name, value: j(p.dir), mode: 'prepend', runtime: true });
  }
  vars.push(
    { name: 'PKG_CONFIG_PATH', value: j('lib', 'pkgconfig'), mode: 'prepend' },
    { name: 'CMAKE_PREFIX_PATH', value: prefix, mode: 'prepend' },
  );
  for (const [name, value] of Object.entries(extra)) vars.push({ name, value, mode: 'set' });
  return vars;
}

/** The variables a receipt's env files export. */
export function receiptEnvVars(r: Pick<Receipt, 'prefix' | 'platform' | 'extraEnv' | 'searchPaths'>): EnvVar[] {
  return envVars(r.prefix, r.platform, r.extraEnv ?? {}, r.searchPaths ?? []);
}

/**
 * What names one environment in the shell: the file that is active keeps it, so sourcing another prefix's file (or
 * this prefix's after a run changed its variables) first undoes the active one, and sourcing the same file again
 * does nothing.
 */
export function envKey(vars: EnvVar[]): string {
  return createHash('sha256').update(JSON.stringify(vars.map((v) => [v.name, v.value, v.mode, !!v.runtime]))).digest('hex').slice(0, 16);
}

/** The prefix the variables belong to, as the env files' comments name it. */
function prefixOf(vars: readonly EnvVar[]): string {
  return (vars.find((v) => v.name === EnvVars.LEVEL_ZERO_V1_SDK_PATH)?.value ?? '').replace(/[\r\n]/g, '?');
}

/** The env file of one shell for the variables (the shell's table writes it). */
export function renderEnv(vars: EnvVar[], shell: Shell, platform: TargetPlatform): string {
  const table = shellTable(shell);
  const layout = layoutFor(platform);
  const prefix = prefixOf(vars);
  const ctx = { prefix, file: prefixJoin(prefix, platform, table.envFile), key: envKey(vars), sep: layout.pathSep, msys: layout.msysShell };
  return table.render(vars, ctx);
}

/**
 * What taking the prefix out of `env` means: its entries removed from each search path, and the variables it sets
 * unset where they still hold its value. `value` undefined means unset.
 */
export function withoutPrefix(vars: EnvVar[], env: Record<string, string | undefined>, platform: TargetPlatform): EnvChange[] {
  const { pathSep: sep, msysShell } = layoutFor(platform);
  const out: EnvChange[] = [];
  for (const v of vars) {
    const current = env[v.name];
    if (current === undefined) continue;
    if (v.mode === 'set') {
      if (current === v.value) out.push({ name: v.name });
      continue;
    }
    const ours = new Set([v.value, msysPath(v.value)]);
    // Git Bash holds a Windows prefix's PATH as ':'-joined POSIX paths (what env.sh wrote there).
    const listSep = msysShell && v.name === 'PATH' && !current.includes(';') ? ':' : sep;
    const split = current.split(listSep);
    const kept = split.filter((p) => !ours.has(p));
    if (kept.length === split.length) continue;
    out.push(kept.some(Boolean) ? { name: v.name, value: kept.join(listSep) } : { name: v.name });
  }
  return out;
}

/** What sourcedEnv reads of a platform. */
type EnvLayout = Pick<PlatformLayout, 'pathSep' | 'caseInsensitiveEnv'>;

/**
 * The environment a program started after loading the prefix's env file runs with: `current` as env.sh (env.bat where
 * variable names ignore case) leaves it. Computed from the same variables the files are rendered from, and the same
 * steps they take: another prefix's active file is undone first (its saved values put back), what this one changes
 * is saved, each `set` is set and each search path put in front unless the list holds it already (env.bat: starts
 * with it). The loader's path is always included: the proof is of the runtime, not of `XPU_SETUP_ENV=compilers`.
 */
export function sourcedEnv(vars: EnvVar[], layout: EnvLayout, current: Record<string, string | undefined>): Record<string, string> {
  const env = new Map<string, { name: string; value: string }>();
  const keyOf = (n: string) => (layout.caseInsensitiveEnv ? n.toUpperCase() : n);
  for (const [name, value] of Object.entries(current)) if (value !== undefined) env.set(keyOf(name), { name, value });
  const get = (n: string) => env.get(keyOf(n))?.value;
  // A name keeps the spelling the environment had (Windows' `Path`), so a child never gets two of one variable.
  const put = (n: string, value: string) => env.set(keyOf(n), { name: env.get(keyOf(n))?.name ?? n, value });
  const drop = (n: string) => env.delete(keyOf(n));
  const key = envKey(vars);
  if (get('_XPU_SETUP_SAVED') !== undefined && get('_XPU_SETUP_ACTIVE') !== key) {
    for (const n of (get('_XPU_SETUP_NAMES') ?? '').split(' ').filter(Boolean)) {
      const old = get(`_XPU_SETUP_OLD_${n}`);
      if (old !== undefined && old !== '') put(n, old);
      else drop(n);
      drop(`_XPU_SETUP_OLD_${n}`);
      drop(`_XPU_SETUP_HAD_${n}`);
    }
    for (const n of ['_XPU_SETUP_SAVED', '_XPU_SETUP_ACTIVE', '_XPU_SETUP_NAMES']) drop(n);
  }
  if (get('_XPU_SETUP_ACTIVE') !== key) {
    put('_XPU_SETUP_SAVED', '1');
    put('_XPU_SETUP_ACTIVE', key);
    put('_XPU_SETUP_NAMES', vars.map((v) => v.name).join(' '));
    for (const v of vars) {
      const had = get(v.name);
      if (had !== undefined) put(`_XPU_SETUP_OLD_${v.name}`, had);
    }
  }
  const sep = layout.pathSep;
  const norm = (p: string) => (layout.caseInsensitiveEnv ? p.toLowerCase() : p);
  for (const v of vars) {
    const now = get(v.name);
    if (v.mode === 'set') put(v.name, v.value);
    else if (!now) put(v.name, v.value);
    else {
      const holds = layout.caseInsensitiveEnv ? norm(`${now}${sep}`).startsWith(norm(`${v.value}${sep}`)) : `${sep}${now}${sep}`.includes(`${sep}${v.value}${sep}`);
      if (!holds) put(v.name, `${v.value}${sep}${now}`);
    }
  }
  return Object.fromEntries([...env.values()].map((e) => [e.name, e.value]));
}

/** Whether `current` is already what loading the prefix's env file gives: loading it again would change no variable. */
export function envIsActive(vars: EnvVar[], layout: EnvLayout, current: Record<string, string | undefined>): boolean {
  const after = sourcedEnv(vars, layout, current);
  return vars.every((v) => lookup(after, v.name, layout) === lookup(current, v.name, layout));
}

function lookup(env: Record<string, string | undefined>, name: string, layout: EnvLayout): string | undefined {
  if (!layout.caseInsensitiveEnv) return env[name];
  return Object.entries(env).find(([n]) => n.toUpperCase() === name.toUpperCase())?.[1];
}

/** The commands that apply withoutPrefix's answer in a shell. */
export function renderUnset(changes: EnvChange[], shell: Shell): string {
  return shellTable(shell).unset(changes);
}
