// Commands shown to people that work when pasted: quoted paths, xpu-setup as it can be run from their shell, the
// env file for their shell (only one that exists), and the indexes the prefix was installed from.
import * as path from 'node:path';
import type { Deps } from './deps.js';
import type { Receipt } from './install/receipt.js';

/** A POSIX shell word: unquoted when that is safe, else in single quotes (`'` as `'\''`). */
export function shq(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A PowerShell word: single quotes double inside. */
export function psq(s: string): string {
  return /^[A-Za-z0-9_:.\\/-]+$/.test(s) ? s : `'${s.replace(/'/g, "''")}'`;
}

export type HintShell = 'sh' | 'fish' | 'pwsh';

/** The shell the hints speak: PowerShell on Windows, fish when $SHELL is fish, else sh. */
export function hintShell(deps: Pick<Deps, 'env' | 'platform'>): HintShell {
  if (deps.platform === 'win32') return 'pwsh';
  return path.basename(deps.env.SHELL ?? '') === 'fish' ? 'fish' : 'sh';
}

/**
 * How the user can run xpu-setup from their own shell: `xpu-setup` when it is on their PATH, else `npx xpu-setup`.
 * npx puts the package's bin directory on the PATH of the process it starts, not of the user's shell, so those
 * directories do not count.
 */
export async function selfCommand(deps: Pick<Deps, 'env' | 'platform' | 'exists'>): Promise<string> {
  const win = deps.platform === 'win32';
  const dirs = (deps.env.PATH ?? deps.env.Path ?? '').split(win ? ';' : ':').filter(Boolean);
  const names = win ? ['xpu-setup.cmd', 'xpu-setup.exe', 'xpu-setup.ps1'] : ['xpu-setup'];
  const join = win ? path.win32.join : path.posix.join;
  for (const d of dirs) {
    if (/[\\/]_npx[\\/]|node_modules[\\/]\.bin/.test(d)) continue;
    for (const n of names) if (await deps.exists(join(d, n))) return 'xpu-setup';
  }
  return 'npx xpu-setup';
}

const PUBLIC_INDEXES = new Set(['https://conda.anaconda.org/conda-forge', 'https://pypi.org/simple']);

/** The --conda-channel/--index-url options that reproduce where the receipt's components came from. */
export function recordedSourceArgs(receipt: Pick<Receipt, 'components'> | undefined): string[] {
  const args: string[] = [];
  const seen = new Set<string>();
  for (const c of receipt?.components ?? []) {
    const [kind, ...rest] = c.source.split(' ');
    const origin = rest.join(' ').replace(/\/+$/, '');
    if (!origin || PUBLIC_INDEXES.has(origin)) continue;
    const flag = kind === 'conda' ? '--conda-channel' : kind === 'pypi' ? '--index-url' : undefined;
    if (!flag) continue;
    // A conda source may record several channels, comma-separated.
    for (const o of flag === '--conda-channel' ? origin.split(/,\s*/) : [origin]) {
      if (seen.has(flag + o)) continue;
      seen.add(flag + o);
      args.push(flag, o);
    }
  }
  return args;
}

/** `xpu-setup --prefix P [--conda-channel C] ...`, ready to paste. */
export function setupLine(self: string, prefix: string, receipt?: Pick<Receipt, 'components'>, shell: HintShell = 'sh'): string {
  const q = shell === 'pwsh' ? psq : shq;
  return [self, '--prefix', q(prefix), ...recordedSourceArgs(receipt).map((a) => (a.startsWith('--') ? a : q(a)))].join(' ');
}

const ENV_FILE: Record<HintShell, string> = { sh: 'env.sh', fish: 'env.fish', pwsh: 'env.ps1' };

/** The line that loads the prefix's environment in the user's shell, or undefined when that env file is missing. */
export async function envFileLine(deps: Pick<Deps, 'env' | 'platform' | 'exists'>, prefix: string): Promise<string | undefined> {
  const shell = hintShell(deps);
  const file = (shell === 'pwsh' ? path.win32.join : path.posix.join)(prefix, ENV_FILE[shell]);
  if (!(await deps.exists(file))) return undefined;
  if (shell === 'pwsh') return `. ${psq(file)}`;
  return shell === 'fish' ? `source ${shq(file)}` : `. ${shq(file)}`;
}

/** The line that prints the prefix's environment into the user's shell. */
export function envCommandLine(self: string, prefix: string, shell: HintShell): string {
  if (shell === 'pwsh') return `${self} env --prefix ${psq(prefix)} | Out-String | Invoke-Expression`;
  if (shell === 'fish') return `${self} env fish --prefix ${shq(prefix)} | source`;
  return `eval "$(${self} env --prefix ${shq(prefix)})"`;
}
