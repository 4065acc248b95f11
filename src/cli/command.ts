// The shape every command module has; main.ts parses options with node:util parseArgs and dispatches.
import type { ParseArgsConfig } from 'node:util';
import type { Deps } from '../deps.js';
import type { Output } from './output.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  deps: Deps;
  out: Output;
  values: Values;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: OptionSpec;
  /** Returns the process exit code. */
  run(ctx: CommandContext): Promise<number>;
}

/** Options every command accepts. */
export const commonOptions: OptionSpec = {
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
};

export function str(values: Values, key: string): string | undefined {
  const v = values[key];
  return typeof v === 'string' ? v : undefined;
}

export function list(values: Values, key: string): string[] {
  const v = values[key];
  if (v === undefined || typeof v === 'boolean') return [];
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}
