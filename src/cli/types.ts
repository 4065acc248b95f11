// What a command's module receives and returns, and the parsed option values: the types command.ts, options.ts and
// every command share, in a file that imports none of them.
import type { Deps } from '../base/deps.js';
import type { Output } from './output.js';
import type { QuickEntry } from '../cache/quick-answers.js';

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  deps: Deps;
  out: Output;
  values: Values;
  positionals: string[];
  /** The command line and bundle of a run from bin/xpu-setup.js: what a quick answer is recorded under. */
  quick?: QuickEntry;
}

export interface Command {
  name: string;
  /** Returns the process exit code. */
  run(ctx: CommandContext): Promise<number>;
}
