// Commands shown to people that work when pasted: quoted paths, xpu-setup as it can be run from their shell, the
// env file for their shell (only one that exists), and the indexes the prefix was installed from.
import type { Deps } from '../base/deps.js';
import { nodeLayout, type PlatformLayout } from '../platform/index.js';
import type { Receipt } from '../records/receipt.js';
import { findKind, SOURCE_KINDS } from '../kinds/index.js';
import { flagOf, kindOptions } from '../kinds/names.js';
import { detectShell, ENV_FILES, SHELL_TABLES, shellTable, userShell, type Shell } from '../shells/index.js';

/** npm's throwaway install directories: npx runs a package from here, so a path inside is gone tomorrow. */
const NPX_DIR = /[\\/]_npx[\\/]/;

/**
 * How the user can run this xpu-setup again from their own shell, always a line that works when pasted: `xpu-setup`
 * when that name on their PATH is this program; npx and what it was given when npx started it; else node and the
 * script's exact path (a checkout, a global install whose bin directory is not on PATH, a project's node_modules).
 * npx puts the package's bin directory on the PATH of the process it starts, not of the user's shell, so those
 * directories do not count. Without `started` the answer is `xpu-setup` when that is on PATH, else `npx xpu-setup`.
 */
export async function selfCommand(deps: Pick<Deps, 'env' | 'platform' | 'exists' | 'realpath' | 'readFile' | 'started'>): Promise<string> {
  const layout = nodeLayout(deps.platform);
  const dirs = (deps.env.PATH ?? deps.env.Path ?? '').split(layout.pathSep).filter(Boolean);
  const join = layout.path.join;
  const script = deps.started?.script;
  const self = script ? await deps.realpath(script) : undefined;
  /** The first file of these names on PATH outside npx's own directories. */
  const onPath = async (names: string[]): Promise<string | undefined> => {
    for (const d of dirs) {
      if (NPX_DIR.test(d) || /node_modules[\\/]\.bin/.test(d)) continue;
      for (const n of names) if (await deps.exists(join(d, n))) return join(d, n);
    }
    return undefined;
  };
  const named = await onPath(layout.npmShims ? ['xpu-setup.cmd', 'xpu-setup.exe', 'xpu-setup.ps1'] : ['xpu-setup']);
  // Windows' npm shims are scripts that name the package, not links to it: there the name is taken on trust.
  if (named && (layout.npmShims || !self || (await deps.realpath(named)) === self)) return 'xpu-setup';
  if (!script) return 'npx xpu-setup';
  // npx of a directory (`npx xpu-setup` inside a clone) links the clone into its install directory: the script's own
  // path is npx's, its real path the clone's.
  if (NPX_DIR.test(script)) return npxCommand(deps, script, layout);
  if (NPX_DIR.test(self ?? script)) return npxCommand(deps, self ?? script, layout);
  const { word: q, callQuoted = '' } = userShell(layout.defaultShell);
  const nodeOnPath = await onPath([`node${layout.exeSuffix}`]);
  const node = nodeOnPath && (await deps.realpath(nodeOnPath)) === (await deps.realpath(deps.started!.node)) ? 'node' : q(deps.started!.node);
  return `${node.startsWith("'") ? callQuoted : ''}${node} ${q(self ?? script)}`;
}

/**
 * How npx was asked for this package: its install directory's package.json records the spec. A tarball or folder
 * (`npx ./xpu-setup-0.1.0.tgz`) is named by its absolute `file:` path, so the line works from any directory; a registry
 * version is `npx xpu-setup`.
 */
async function npxCommand(deps: Pick<Deps, 'readFile'>, script: string, layout: PlatformLayout): Promise<string> {
  const m = /^(.*[\\/]_npx[\\/][^\\/]+)[\\/]/.exec(script);
  let spec: unknown;
  try {
    spec = m ? (JSON.parse((await deps.readFile(layout.path.join(m[1]!, 'package.json'))) ?? '{}') as { dependencies?: Record<string, unknown> }).dependencies?.['xpu-setup'] : undefined;
  } catch {
    spec = undefined;
  }
  if (typeof spec !== 'string' || !spec.startsWith('file:')) return 'npx xpu-setup';
  // npx runs a bare path as a program; `file:` makes it the package again.
  const where = `file:${layout.path.resolve(m![1]!, spec.slice('file:'.length))}`;
  return `npx ${userShell(layout.defaultShell).word(where)}`;
}

const PUBLIC_INDEXES = new Set(['https://conda.anaconda.org/conda-forge', 'https://pypi.org/simple']);

/** The options naming indexes (KIND_OPTIONS) that reproduce where the receipt's components came from. */
export function recordedSourceArgs(receipt: Pick<Receipt, 'components'> | undefined): string[] {
  const args: string[] = [];
  const seen = new Set<string>();
  for (const c of receipt?.components ?? []) {
    const [kind, ...rest] = c.source.split(' ');
    const origin = rest.join(' ').replace(/\/+$/, '');
    if (!origin || PUBLIC_INDEXES.has(origin)) continue;
    const flag = flagOf(kind ?? '');
    const values = findKind(kind ?? '')?.optionValues;
    if (!flag || !values) continue;
    for (const o of values(origin)) {
      if (seen.has(flag + o)) continue;
      seen.add(flag + o);
      args.push(flag, o);
    }
  }
  return args;
}

/** The flags that ask for a recorded request again, every one spelled out. */
export function requestArgs(r: NonNullable<Receipt['request']>): string[] {
  const args: string[] = [];
  if (r.components.length) args.push('--component', r.components.join(','));
  if (r.sources.length) args.push('--source', r.sources.join(','));
  for (const [kind, o] of kindOptions()) for (const v of r.indexes[kind] ?? []) args.push(`--${o.flag}`, v);
  for (const q of r.requires) args.push('--require', q);
  if (r.refdriver) args.push('--refdriver');
  // The interpreter goes with its option in one word (`--match-torch=PYTHON`), quoted whole when pasted.
  if (r.matchTorch) args.push(r.matchTorch.python ? `--match-torch=${r.matchTorch.python}` : '--match-torch');
  return args;
}

/**
 * `xpu-setup --prefix P [--conda-channel C] ...`, ready to paste: the request the receipt records (a bare run repeats
 * it too, but spelled out people see what will be asked for), or else the indexes its components came from.
 */
export function setupLine(self: string, prefix: string, receipt?: Pick<Receipt, 'components' | 'request'>, shell: Shell = 'sh'): string {
  const q = userShell(shell).word;
  const args = receipt?.request ? requestArgs(receipt.request) : recordedSourceArgs(receipt);
  return [self, '--prefix', q(prefix), ...args.map((a) => (a.startsWith('--') && !a.includes('=') ? a : q(a)))].join(' ');
}

/** `conda https://host/channel (ENOTFOUND)`: an unreached source's label and why, without the URL it failed on. */
export function unreachedShort(reason: string): string {
  const sep = reason.indexOf(': ');
  if (sep < 0) return reason;
  const why = /\(([^()]+)\)\s*$/.exec(reason)?.[1];
  return `${reason.slice(0, sep)} (${why ?? reason.slice(sep + 2)})`;
}

/**
 * What gets a component above the recommended floor it is below, decided from what its run saw. A source it did not
 * reach is named with why, then the lines that can work here: the same request asked again once that source is
 * reachable, or a source this machine does reach. `--require` alone is no fix: it only turns the floor into an error.
 */
export function newerFix(self: string, prefix: string, receipt: Pick<Receipt, 'components' | 'request'> | undefined, unreached: string[], shell: Shell = 'sh'): string {
  const line = setupLine(self, prefix, receipt, shell);
  // The options that name another index of the kinds not reached (every such option when none is known).
  const named = (names: readonly string[]) => [...new Set(names.flatMap((n) => flagOf(n) ?? []))];
  const options = named(unreached.map((u) => u.split(' ')[0]!));
  const flags = (options.length ? options : named(SOURCE_KINDS)).map((f) => `${f} URL`).join(' or ');
  const elsewhere = `${line} ${flags} (a mirror this machine reaches), or ${line} --from DIR (a bundle that \`xpu-setup bundle\` wrote where the index is reachable)`;
  if (!unreached.length) return `no source this machine reached has one: name one that has: ${elsewhere}`;
  const once = unreached.length > 1 ? 'Once they are reachable' : 'Once it is reachable';
  return `not reached: ${unreached.map(unreachedShort).join('; ')}. ${once} (behind a proxy: HTTPS_PROXY): ${line} --refresh; or ${elsewhere}`;
}

/** One sentence on a component installed below its recommended floor: what it lacks, why, and the command for a newer one. */
export function belowFloorSentence(c: Pick<Receipt['components'][number], 'name' | 'version' | 'belowFloor'>, fix?: string): string {
  const b = c.belowFloor!;
  const lacks = b.lacks.length ? `; it lacks ${b.lacks.join('; ')}` : '';
  const unreached = b.unreached.length ? `; not reached: ${b.unreached.join('; ')}` : '';
  return `${c.name} ${c.version} is below the recommended ${b.floor.join(', ')}, which no source it reached has${lacks}${unreached}${fix ? `. For a newer one: ${fix}` : ''}`;
}

/** The short form of that sentence: the version, the floor, and the sources not reached (the long form says the rest). */
export function belowFloorShort(c: Pick<Receipt['components'][number], 'name' | 'version' | 'belowFloor'>): string {
  const b = c.belowFloor!;
  const why = b.unreached.length ? `not reached: ${b.unreached.map(unreachedShort).join('; ')}` : 'no source it reached has one';
  return `${c.name} ${c.version} is below the recommended ${b.floor.join(', ')} (${why}); --verbose says what it lacks and how to get a newer one`;
}

/** The line that loads the prefix's environment in the user's shell, whether or not its env file exists yet. */
export function envFileCommand(deps: Pick<Deps, 'env' | 'platform'>, prefix: string): { file: string; line: string } {
  const shell = detectShell(deps);
  const file = nodeLayout(deps.platform).path.join(prefix, ENV_FILES[shell]);
  return { file, line: userShell(shell).source(file) };
}

/** The line that loads the prefix's environment in the user's shell, or undefined when that env file is missing. */
export async function envFileLine(deps: Pick<Deps, 'env' | 'platform' | 'exists'>, prefix: string): Promise<string | undefined> {
  const { file, line } = envFileCommand(deps, prefix);
  return (await deps.exists(file)) ? line : undefined;
}

/**
 * The env files setup's closing line names: on Windows each shell's there (`call "env.bat"` for cmd besides `. env.ps1`
 * for PowerShell), elsewhere the user's shell's; only files that exist.
 */
export async function envFilesLine(deps: Pick<Deps, 'env' | 'platform' | 'exists'>, prefix: string): Promise<string | undefined> {
  const own = await envFileLine(deps, prefix);
  const layout = nodeLayout(deps.platform);
  if (!layout.cmdEnvFile) return own;
  const side: string[] = [];
  for (const t of SHELL_TABLES) {
    const file = layout.path.join(prefix, t.envFile);
    if (t.sideLoad && (await deps.exists(file))) side.push(`${t.title}: ${t.sideLoad(file)}`);
  }
  if (!side.length) return own;
  return [...side, ...(own ? [`${shellTable(detectShell(deps)).title}: ${own}`] : [])].join('   ');
}

/** The line that prints the prefix's environment into the user's shell. */
export function envCommandLine(self: string, prefix: string, shell: Shell): string {
  return userShell(shell).evalLine(self, prefix);
}
