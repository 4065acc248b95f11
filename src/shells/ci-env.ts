// Environment for CI systems and files a child process reads: GitHub's GITHUB_ENV/GITHUB_PATH, dotenv, sh exports.
import * as fs from 'node:fs/promises';
import { XpuError } from '../base/errors.js';
import type { TargetPlatform } from '../platform/types.js';
import { layoutFor } from '../platform/index.js';
import type { EnvVar } from './shell.js';

export type CiShell = 'github' | 'dotenv';
export const CI_SHELLS: readonly CiShell[] = ['dotenv', 'github'];

/**
 * Final values: a file of `NAME=value` lines has no expansion, so a prepended search path is joined here with what
 * the variable holds in `current` (the environment of the process writing the file).
 */
export function resolveEnv(vars: EnvVar[], platform: TargetPlatform, current: Record<string, string | undefined>): { name: string; value: string }[] {
  const sep = layoutFor(platform).pathSep;
  return vars.map((v) => {
    const now = current[v.name];
    return { name: v.name, value: v.mode === 'prepend' && now ? `${v.value}${sep}${now}` : v.value };
  });
}

/** `docker --env-file` and most dotenv readers: one `NAME=value` per line, taken literally, no quotes. */
export function renderDotenv(vars: { name: string; value: string }[]): string {
  for (const v of vars) {
    if (/[\r\n]/.test(v.value)) throw new XpuError('USAGE', `${v.name} holds a line break, which a dotenv file cannot carry`);
  }
  return vars.map((v) => `${v.name}=${v.value}`).join('\n') + (vars.length ? '\n' : '');
}

/** GitHub's file-command syntax: `NAME=value`, or a heredoc with a delimiter the value cannot contain. */
export function githubLines(vars: { name: string; value: string }[]): string {
  return vars
    .map((v) => {
      if (!/[\r\n]/.test(v.value)) return `${v.name}=${v.value}\n`;
      // Web Crypto, reached only here: node:crypto's module tree would cost every command that imports this file.
      const delim = `xpu_setup_${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(8))).toString('hex')}`;
      return `${v.name}<<${delim}\n${v.value}\n${delim}\n`;
    })
    .join('');
}

export interface GithubEnv {
  /** Appended to GITHUB_ENV. */
  env: string;
  /** Appended to GITHUB_PATH: the directories PATH should start with. */
  path: string;
}

/** PATH goes through GITHUB_PATH (the runner prepends it); every other variable through GITHUB_ENV, resolved. */
export function githubEnv(vars: EnvVar[], platform: TargetPlatform, current: Record<string, string | undefined>): GithubEnv {
  const pathDirs = vars.filter((v) => v.name === 'PATH' && v.mode === 'prepend').map((v) => v.value);
  const rest = resolveEnv(vars.filter((v) => !(v.name === 'PATH' && v.mode === 'prepend')), platform, current);
  return { env: githubLines(rest), path: pathDirs.map((d) => `${d}\n`).join('') };
}

/** Appends to a GitHub file command; the runner reads it after the step. */
export async function appendTo(file: string, text: string): Promise<void> {
  if (!text) return;
  try {
    await fs.appendFile(file, text);
  } catch (e) {
    throw new XpuError('INSTALL', `cannot append to ${file}`, { cause: e, details: { file }, hints: ['check that GITHUB_ENV / GITHUB_PATH / GITHUB_OUTPUT name writable files'] });
  }
}
