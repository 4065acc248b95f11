// The shells xpu-setup writes env files for, in the order setup writes them; everything else asks this list. A new
// shell is its table module (shell.ts says what one holds) and its line here.
import * as path from 'node:path';
import { nodeLayout } from '../platform/index.js';
import { cmd } from './cmd.js';
import { fish } from './fish.js';
import { json } from './json.js';
import { pwsh } from './pwsh.js';
import type { ShellTable, UserShell } from './shell.js';
import { sh } from './sh.js';

const TABLES = [sh, fish, pwsh, cmd, json] as const;

/** A shell's syntax name (`sh`, `fish`, `pwsh`, `cmd`, `json`). */
export type Shell = (typeof TABLES)[number]['name'];

export const SHELL_TABLES: readonly ShellTable<Shell>[] = TABLES;

/** The syntax names, one env file each. */
export const SHELLS: readonly Shell[] = SHELL_TABLES.map((t) => t.name);

/** Each shell's env file, by syntax name. */
export const ENV_FILES = Object.fromEntries(SHELL_TABLES.map((t) => [t.name, t.envFile])) as Readonly<Record<Shell, string>>;

/** Every name a user may type for a shell (offered and not), and the syntax it reads: bash -> sh. */
export const SHELL_SYNTAX: Readonly<Record<string, Shell>> = Object.fromEntries(
  SHELL_TABLES.flatMap((t) => [t.name, ...(t.also ?? []), ...(t.aliases ?? [])].map((n) => [n, t.name])),
);

/** The names offered as choices (help, completion): each syntax and the shells that read it. */
export const SHELL_CHOICES: readonly string[] = SHELL_TABLES.flatMap((t) => [t.name, ...(t.also ?? [])]);

/** The shells people type into (they have pasted lines and are detected), by syntax name. */
export const USER_SHELLS: readonly Shell[] = SHELL_TABLES.filter((t) => t.user).map((t) => t.name);

/** Whether a name is that of a shell people type into (USER_SHELLS). */
export const isUserShell = (name: string): name is Shell => (USER_SHELLS as readonly string[]).includes(name);

/** The syntax a name a user typed reads (`bash` -> sh), or undefined for no shell's name. */
export function syntaxOf(name: string): Shell | undefined {
  return Object.hasOwn(SHELL_SYNTAX, name) ? SHELL_SYNTAX[name] : undefined;
}

/** The table of a syntax name (as SHELLS lists); a name no table has is a bug. */
export function shellTable(shell: Shell): ShellTable<Shell> {
  const t = SHELL_TABLES.find((x) => x.name === shell);
  if (!t) throw new Error(`no shell table named ${shell}`);
  return t;
}

/** The lines shown to people in a shell they type into (USER_SHELLS). */
export function userShell(shell: Shell): UserShell {
  const u = shellTable(shell).user;
  if (!u) throw new Error(`${shell} is no shell people type into`);
  return u;
}

/**
 * The user's own shell: the syntax of the shell the platform's login-shell variable names ($SHELL's basename on
 * Unix), when it is one people type into; the platform's default shell otherwise (PowerShell on Windows, sh).
 */
export function detectShell(deps: { env: Record<string, string | undefined>; platform: NodeJS.Platform }): Shell {
  const { userShellVar, defaultShell } = nodeLayout(deps.platform);
  if (!userShellVar) return defaultShell;
  const found = syntaxOf(path.basename(deps.env[userShellVar] ?? '').replace(/\.exe$/, ''));
  return found !== undefined && isUserShell(found) ? found : defaultShell;
}

/** The start-up files of every shell, relative to the home directory (`.config/` is $XDG_CONFIG_HOME's). */
export const STARTUP_FILES: readonly string[] = SHELL_TABLES.flatMap((t) => t.startupFiles ?? []);

/** Directories whose files of one extension shells read at start, relative as STARTUP_FILES. */
export const STARTUP_DIRS: readonly { dir: string; ext: string }[] = SHELL_TABLES.flatMap((t) => t.startupDirs ?? []);
