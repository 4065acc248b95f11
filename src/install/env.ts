// The environment a prefix needs, and its rendering for sh, fish, PowerShell, cmd and JSON.
import type { TargetPlatform } from '../host/types.js';
import { layoutFor } from '../host/index.js';
import { EnvVars } from '../env-names.js';

export type Shell = 'sh' | 'fish' | 'pwsh' | 'cmd' | 'json';
export const SHELLS: readonly Shell[] = ['sh', 'fish', 'pwsh', 'cmd', 'json'];

export interface EnvVar {
  name: string;
  value: string;
  /** prepend: a search path put in front of what the variable already holds. */
  mode: 'set' | 'prepend';
  /** Only the dynamic loader needs it (not compilers, pkg-config, CMake or Triton's build): left out in compilers mode. */
  runtime?: boolean;
}

/** How the env files name the mode that leaves the loader's search path alone. */
export const COMPILERS_MODE_VAR = 'XPU_SETUP_ENV';

/** Joins prefix-relative parts with the separator the prefix path itself uses. */
export function prefixJoin(prefix: string, platform: TargetPlatform, ...parts: string[]): string {
  const sep = layoutFor(platform).prefixSeparator(prefix);
  return [prefix.replace(/[\\/]+$/, ''), ...parts].join(sep);
}

export function envVars(prefix: string, platform: TargetPlatform, extra: Record<string, string> = {}): EnvVar[] {
  const j = (...p: string[]) => prefixJoin(prefix, platform, ...p);
  const vars: EnvVar[] = [
    { name: EnvVars.LEVEL_ZERO_V1_SDK_PATH, value: prefix, mode: 'set' },
    { name: EnvVars.ZE_PATH, value: prefix, mode: 'set' },
  ];
  for (const v of layoutFor(platform).searchPathVars) {
    vars.push({ name: v.name, value: j(v.dir), mode: 'prepend', ...(v.runtime ? { runtime: true } : {}) });
  }
  vars.push(
    { name: 'PKG_CONFIG_PATH', value: j('lib', 'pkgconfig'), mode: 'prepend' },
    { name: 'CMAKE_PREFIX_PATH', value: prefix, mode: 'prepend' },
  );
  for (const [name, value] of Object.entries(extra)) vars.push({ name, value, mode: 'set' });
  return vars;
}

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const psQuote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const fishQuote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Git Bash / MSYS spelling of a Windows path: C:\\x\\bin -> /c/x/bin (POSIX paths stay). */
export function msysPath(p: string): string {
  const m = /^([A-Za-z]):[\\/]?(.*)$/.exec(p);
  return m ? `/${m[1]!.toLowerCase()}/${m[2]!.replace(/\\/g, '/')}` : p.replace(/\\/g, '/');
}

/**
 * POSIX sh (bash, zsh, dash; Git Bash on Windows). Sourcing it twice adds nothing twice; the first time saves what
 * each variable held so `xpu_setup_deactivate` can put it back; XPU_SETUP_ENV=compilers skips the loader's path.
 */
function renderSh(vars: EnvVar[], platform: TargetPlatform, header: string): string {
  // Git Bash reads PATH as POSIX paths joined by ':' (it converts PATH for Windows programs itself); INCLUDE, LIB
  // and the SDK path are read by Windows programs (MSVC, Python) as they are.
  const msys = platform === 'win-x64';
  const sepOf = (v: EnvVar) => (msys ? (v.name === 'PATH' ? ':' : ';') : layoutFor(platform).pathSep);
  const valueOf = (v: EnvVar) => (msys && v.name === 'PATH' ? msysPath(v.value) : v.value);
  const names = vars.map((v) => v.name);
  const lines = [
    `# ${header} sh`,
    '# Sourcing this again changes nothing; xpu_setup_deactivate restores what was there before.',
    `# ${COMPILERS_MODE_VAR}=compilers . <this file>: only what compilers, pkg-config, CMake and Triton read.`,
    'if [ -z "${_XPU_SETUP_SAVED+x}" ]; then',
    '  _XPU_SETUP_SAVED=1',
    ...names.map((n) => `  _XPU_SETUP_OLD_${n}="\${${n}-}"; _XPU_SETUP_HAD_${n}="\${${n}+x}"`),
    'fi',
  ];
  for (const v of vars) {
    let line: string;
    if (v.mode === 'set') line = `export ${v.name}=${shQuote(v.value)}`;
    else {
      const sep = sepOf(v);
      const value = valueOf(v);
      line = `case "${sep}\${${v.name}-}${sep}" in *${shQuote(`${sep}${value}${sep}`)}*) ;; *) export ${v.name}=${shQuote(value)}"\${${v.name}:+${sep}\$${v.name}}" ;; esac`;
    }
    lines.push(v.runtime ? `[ "\${${COMPILERS_MODE_VAR}-}" = compilers ] || ${line.startsWith('case') ? `{ ${line}; }` : line}` : line);
  }
  lines.push(
    'xpu_setup_deactivate() {',
    '  if [ -n "${_XPU_SETUP_SAVED+x}" ]; then',
    ...names.map((n) => `    if [ -n "$_XPU_SETUP_HAD_${n}" ]; then export ${n}="$_XPU_SETUP_OLD_${n}"; else unset ${n}; fi; unset _XPU_SETUP_OLD_${n} _XPU_SETUP_HAD_${n}`),
    '    unset _XPU_SETUP_SAVED',
    '  fi',
    '  unset -f xpu_setup_deactivate',
    '}',
  );
  return lines.join('\n') + '\n';
}

/**
 * fish 3. On Linux *PATH variables are path lists; for a Windows prefix every list but PATH (INCLUDE, LIB, ...) is a
 * ';' string that is prepended to, never overwritten.
 * Sourcing twice adds nothing twice; `xpu_setup_deactivate` restores the saved values.
 */
function renderFish(vars: EnvVar[], platform: TargetPlatform, header: string): string {
  const sep = layoutFor(platform).pathSep;
  const names = vars.map((v) => v.name).join(' ');
  const lines = [
    `# ${header} fish`,
    '# Sourcing this again changes nothing; xpu_setup_deactivate restores what was there before.',
    `# set -x ${COMPILERS_MODE_VAR} compilers; source <this file>: only what compilers, pkg-config, CMake and Triton read.`,
    'if not set -q _xpu_setup_saved',
    '    set -g _xpu_setup_saved 1',
    `    for v in ${names}`,
    '        if set -q $v',
    '            set -g _xpu_setup_old_$v $$v',
    '        end',
    '    end',
    'end',
  ];
  for (const v of vars) {
    let line: string;
    if (v.mode === 'set') line = `set -gx ${v.name} ${fishQuote(v.value)}`;
    else if (sep === ':' ? v.name.endsWith('PATH') : v.name === 'PATH') {
      // fish joins path variables with ':' when it exports them; on Windows that is fish's own (MSYS) PATH.
      const q = fishQuote(sep === ':' ? v.value : msysPath(v.value));
      line = `contains -- ${q} $${v.name}; or set -gx --path ${v.name} ${q} $${v.name}`;
    } else {
      const q = fishQuote(v.value);
      line = `if not set -q ${v.name}; or test -z "$${v.name}"; set -gx ${v.name} ${q}; else if not contains -- ${q} (string split -- ${fishQuote(sep)} "$${v.name}"); set -gx ${v.name} ${fishQuote(v.value + sep)}"$${v.name}"; end`;
    }
    lines.push(v.runtime ? `if test "$${COMPILERS_MODE_VAR}" != compilers; ${line}; end` : line);
  }
  lines.push(
    'function xpu_setup_deactivate',
    '    if set -q _xpu_setup_saved',
    `        for v in ${names}`,
    '            set -l old _xpu_setup_old_$v',
    '            if set -q $old',
    '                set -gx $v $$old',
    '                set -e $old',
    '            else',
    '                set -e $v',
    '            end',
    '        end',
    '        set -e _xpu_setup_saved',
    '    end',
    '    functions -e xpu_setup_deactivate',
    'end',
  );
  return lines.join('\n') + '\n';
}

export function renderEnv(vars: EnvVar[], shell: Shell, platform: TargetPlatform): string {
  const sep = layoutFor(platform).pathSep;
  const header = 'generated by xpu-setup; regenerate with: xpu-setup env --prefix <prefix> --shell';
  switch (shell) {
    case 'sh':
      return renderSh(vars, platform, header);
    case 'fish':
      return renderFish(vars, platform, header);
    case 'pwsh':
      return [`# ${header} pwsh`, ...vars.map((v) =>
        v.mode === 'set'
          ? `$env:${v.name} = ${psQuote(v.value)}`
          : `$env:${v.name} = if ($env:${v.name}) { ${psQuote(v.value + sep)} + $env:${v.name} } else { ${psQuote(v.value)} }`,
      )].join('\n') + '\n';
    case 'cmd':
      return ['@echo off', `rem ${header} cmd`, ...vars.map((v) =>
        v.mode === 'set'
          ? `set "${v.name}=${v.value}"`
          : `if defined ${v.name} (set "${v.name}=${v.value}${sep}%${v.name}%") else (set "${v.name}=${v.value}")`,
      )].join('\r\n') + '\r\n';
    case 'json':
      return JSON.stringify({ schema: 1, separator: sep, vars }, null, 2) + '\n';
  }
}

/**
 * What taking the prefix out of `env` means: its entries removed from each search path, and the variables it sets
 * unset where they still hold its value. `value` undefined means unset.
 */
export function withoutPrefix(vars: EnvVar[], env: Record<string, string | undefined>, platform: TargetPlatform): { name: string; value?: string }[] {
  const sep = layoutFor(platform).pathSep;
  const out: { name: string; value?: string }[] = [];
  for (const v of vars) {
    const current = env[v.name];
    if (current === undefined) continue;
    if (v.mode === 'set') {
      if (current === v.value) out.push({ name: v.name });
      continue;
    }
    const ours = new Set([v.value, msysPath(v.value)]);
    // Git Bash holds a Windows prefix's PATH as ':'-joined POSIX paths (what env.sh wrote there).
    const listSep = platform === 'win-x64' && v.name === 'PATH' && !current.includes(';') ? ':' : sep;
    const split = current.split(listSep);
    const kept = split.filter((p) => !ours.has(p));
    if (kept.length === split.length) continue;
    out.push(kept.some(Boolean) ? { name: v.name, value: kept.join(listSep) } : { name: v.name });
  }
  return out;
}

/** The commands that apply withoutPrefix's answer in a shell. */
export function renderUnset(changes: { name: string; value?: string }[], shell: Shell): string {
  const lines = changes.map(({ name, value }) => {
    switch (shell) {
      case 'sh':
        return value === undefined ? `unset ${name}` : `export ${name}=${shQuote(value)}`;
      case 'fish':
        return value === undefined ? `set -e ${name}` : `set -gx ${name} ${fishQuote(value)}`;
      case 'pwsh':
        return value === undefined ? `Remove-Item Env:${name} -ErrorAction SilentlyContinue` : `$env:${name} = ${psQuote(value)}`;
      case 'cmd':
        return value === undefined ? `set ${name}=` : `set "${name}=${value}"`;
      case 'json':
        return '';
    }
  });
  if (shell === 'json') return JSON.stringify({ schema: 1, unset: changes }, null, 2) + '\n';
  // The env file's own bookkeeping, so that sourcing it again saves afresh.
  if (shell === 'sh') lines.push('unset _XPU_SETUP_SAVED', 'unset -f xpu_setup_deactivate 2>/dev/null || true');
  if (shell === 'fish') lines.push('set -e _xpu_setup_saved', 'functions -e xpu_setup_deactivate');
  return lines.join(shell === 'cmd' ? '\r\n' : '\n') + (shell === 'cmd' ? '\r\n' : '\n');
}

export const ENV_FILES: Record<Exclude<Shell, never>, string> = {
  sh: 'env.sh',
  fish: 'env.fish',
  pwsh: 'env.ps1',
  cmd: 'env.bat',
  json: 'env.json',
};
