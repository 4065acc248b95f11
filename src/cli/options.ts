// One option table per command: the parser's config, the help text, the suggestions and the shell completions all
// come from it. This file imports nothing heavy, so `--help` and `--version` stay fast.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { XpuError } from '../base/errors.js';
import { nearest } from '../base/spelling.js';
import type { CommandContext, Values } from './types.js';

export { editDistance, nearest } from '../base/spelling.js';
export type { Values } from './types.js';

export interface OptionDef {
  /** Long name, without the leading `--`. */
  name: string;
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** What the value is, for the help line (DIR, URL, NAME). */
  value?: string;
  /** Values offered by help and completion; the command still validates (and may accept aliases). */
  choices?: readonly string[];
  description: string;
  /** The environment variable that sets the same thing when the option is absent. */
  env?: string;
  /** What happens when neither the option nor its variable is given. */
  default?: string;
  /** What completion offers for the value when there are no choices. */
  complete?: 'dir' | 'file';
  /** A string option whose value may be left out (`--match-torch` or `--match-torch=PYTHON`): bare, it is "". */
  optionalValue?: boolean;
}

/** Two options that cannot be combined, and the sentence that says which wins or why not. */
export interface Conflict {
  a: string;
  b: string;
  /** Only a conflict when `a` has this value (e.g. --format pytorch, not --format json). */
  when?: (values: Values) => boolean;
  why: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** The positional argument, when the command takes one. */
  argument?: { name: string; description: string; choices?: readonly string[]; optional?: boolean };
  options: OptionDef[];
  conflicts?: Conflict[];
  examples: [command: string, what: string][];
  exitCodes: [code: number, meaning: string][];
  /** Imports the command's module; only the command that runs is ever loaded. */
  load(): Promise<{ run(ctx: CommandContext): Promise<number> }>;
}

export const EXIT_OK = 0;
export const EXIT_FAIL = 1;
export const EXIT_USAGE = 2;

/** Options every command accepts. */
export const commonOptions: OptionDef[] = [
  { name: 'json', type: 'boolean', description: 'print one JSON document on stdout (messages stay on stderr)' },
  { name: 'quiet', type: 'boolean', short: 'q', description: 'print only errors' },
  { name: 'verbose', type: 'boolean', description: 'print more detail: what was tried, facts, timings' },
  { name: 'help', type: 'boolean', short: 'h', description: 'show this help' },
  { name: 'version', type: 'boolean', short: 'v', description: 'print the version (also -V); with --json, the installed components too' },
];

export const commonConflicts: Conflict[] = [
  { a: 'quiet', b: 'verbose', why: '--quiet prints only errors and --verbose prints more: pick one' },
];

export function allOptions(spec: CommandSpec): OptionDef[] {
  return [...spec.options, ...commonOptions.filter((c) => !spec.options.some((o) => o.name === c.name))];
}

export function toParseArgs(defs: OptionDef[]): NonNullable<ParseArgsConfig['options']> {
  const out: NonNullable<ParseArgsConfig['options']> = {};
  for (const d of defs) {
    out[d.name] = { type: d.type, ...(d.short ? { short: d.short } : {}), ...(d.multiple ? { multiple: true } : {}) };
  }
  return out;
}

export interface Parsed {
  values: Values;
  positionals: string[];
}

function usageError(message: string, spec: CommandSpec, hints: string[] = []): XpuError {
  return new XpuError('USAGE', message, { hints: [...hints, `see: xpu-setup ${spec.name === 'setup' ? '' : `${spec.name} `}--help`] });
}

/**
 * Parses argv against the command's table; unknown options suggest the nearest, conflicts say which wins. The values
 * of path options (those that complete as a file or directory) go through `expandPath`, so `--prefix=~/x` means what
 * `--prefix ~/x` means in a shell.
 */
export function parseCommandArgs(spec: CommandSpec, args: string[], expandPath: (p: string) => string = (p) => p): Parsed {
  const defs = allOptions(spec);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: withOptionalValues(defs, args), options: toParseArgs(defs), allowPositionals: true, strict: true }) as typeof parsed;
  } catch (e) {
    const message = (e as Error).message;
    const unknown = /Unknown option '(-{1,2})([^'=]+)/.exec(message);
    if (unknown) {
      const flag = `${unknown[1]}${unknown[2]}`;
      const names = defs.map((d) => d.name);
      const guess = unknown[1] === '--' ? nearest(unknown[2]!, names) : undefined;
      throw usageError(`unknown option ${flag} for "${spec.name}"`, spec, guess ? [`did you mean --${guess}?`] : []);
    }
    // Node's `Option '--prefix <value>' argument missing`, said as the option's own help line says it.
    const missing = /Option '(?:-\w, )?--([\w-]+) <value>' argument missing/.exec(message);
    const def = missing && defs.find((d) => d.name === missing[1]);
    if (def) throw usageError(`--${def.name} needs a value: --${def.name} ${def.value ?? 'VALUE'}`, spec);
    throw usageError(message.replace(/\. To specify a positional argument.*$/s, '').replace(/\.$/, ''), spec);
  }
  const { values, positionals } = parsed;
  for (const d of defs) {
    const v = values[d.name];
    if (!d.complete || v === undefined || typeof v === 'boolean') continue;
    values[d.name] = Array.isArray(v) ? v.map(expandPath) : expandPath(v);
  }
  const max = spec.argument ? 1 : 0;
  if (positionals.length > max) {
    const extra = positionals[max]!;
    throw usageError(
      spec.argument ? `"${spec.name}" takes one ${spec.argument.name}, got "${positionals.join('" "')}"` : `"${spec.name}" takes no arguments, got "${extra}"`,
      spec,
    );
  }
  for (const c of [...(spec.conflicts ?? []), ...commonConflicts]) {
    if (values[c.a] !== undefined && values[c.b] !== undefined && (!c.when || c.when(values))) throw usageError(c.why, spec);
  }
  return { values, positionals };
}

/** A bare option whose value is optional becomes `--name=`, so the parser takes it (a value is given only with `=`). */
function withOptionalValues(defs: OptionDef[], args: string[]): string[] {
  const bare = new Set(defs.filter((d) => d.optionalValue).map((d) => `--${d.name}`));
  const end = args.indexOf('--');
  return args.map((a, i) => (bare.has(a) && (end < 0 || i < end) ? `${a}=` : a));
}

function optionLabel(d: OptionDef): string {
  const value = d.value ?? (d.choices ? d.choices.join('|') : 'VALUE');
  const long = `--${d.name}${d.type === 'string' ? (d.optionalValue ? `[=${value}]` : ` ${value}`) : ''}`;
  return d.short ? `-${d.short}, ${long}` : `    ${long}`;
}

export function commandHelp(spec: CommandSpec): string {
  const arg = spec.argument ? (spec.argument.optional ? ` [${spec.argument.name}]` : ` ${spec.argument.name}`) : '';
  const name = spec.name === 'setup' ? '[setup]' : spec.name;
  const lines = [`usage: xpu-setup ${name}${arg} [options]`, '', spec.summary, ''];
  if (spec.argument) {
    lines.push('argument:', `  ${spec.argument.name}  ${spec.argument.description}${spec.argument.choices ? ` (${spec.argument.choices.join(', ')})` : ''}`, '');
  }
  lines.push('options:');
  const defs = allOptions(spec);
  const width = Math.min(40, Math.max(...defs.map((d) => optionLabel(d).length)) + 2);
  for (const d of defs) {
    const label = optionLabel(d);
    const pad = label.length < width ? label.padEnd(width) : `${label}\n${''.padEnd(width + 2)}`;
    lines.push(`  ${pad}${d.description}`);
    const listed = d.choices && d.value !== undefined ? `one of: ${d.choices.join(', ')}` : '';
    const extra = [listed, d.multiple ? 'may be repeated or comma-separated' : '', d.env ? `env ${d.env}` : '', d.default ? `default: ${d.default}` : '']
      .filter(Boolean);
    if (extra.length) lines.push(`  ${''.padEnd(width)}(${extra.join('; ')})`);
  }
  if (spec.conflicts?.length) {
    lines.push('', 'not together:');
    for (const c of spec.conflicts) lines.push(`  --${c.a} / --${c.b}: ${c.why}`);
  }
  if (spec.examples.length) {
    lines.push('', 'examples:');
    for (const [cmd, what] of spec.examples) lines.push(`  ${cmd}`, `      ${what}`);
  }
  lines.push('', 'exit codes:');
  for (const [code, meaning] of spec.exitCodes) lines.push(`  ${code}  ${meaning}`);
  return lines.join('\n');
}

export function generalHelp(specs: readonly CommandSpec[]): string {
  const width = Math.max(...specs.map((s) => s.name.length)) + 2;
  return [
    'usage: xpu-setup [command] [options]',
    '',
    'Level Zero and Unified Runtime headers and loaders in a prefix your compilers find, verified, probed and',
    'smoke-tested.',
    '',
    'commands (default: setup):',
    ...specs.map((s) => `  ${s.name.padEnd(width)}${s.summary}`),
    '',
    'options every command takes:',
    ...commonOptions.map((d) => `  ${optionLabel(d).padEnd(18)}${d.description}`),
    '',
    'Run `xpu-setup help COMMAND` (or `xpu-setup COMMAND --help`) for its options, examples and exit codes.',
  ].join('\n');
}
