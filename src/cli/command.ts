// What a command's module receives and returns; its options, help and examples live in registry.ts.
import { XpuError } from '../base/errors.js';
import type { Values } from './types.js';

export type { Command, CommandContext, Values } from './types.js';

export function str(values: Values, key: string): string | undefined {
  const v = values[key];
  return typeof v === 'string' ? v : undefined;
}

/**
 * The one separator rule of every list value: a repeatable option's value, a list variable (XPU_SETUP_CONDA_CHANNELS,
 * XPU_SETUP_REQUIRE) and a multi-value action input all split on commas and newlines; spaces around an item are
 * dropped, spaces inside it kept (`level-zero >= 1.9` is one constraint).
 */
export function splitList(text: string): string[] {
  return text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
}

/** The items of a repeatable option; one given with nothing in it (`--component ''`) is an error, never "all". */
export function list(values: Values, key: string): string[] {
  const v = values[key];
  if (v === undefined || typeof v === 'boolean') return [];
  const given = Array.isArray(v) ? v : [v];
  const empty = given.find((g) => !splitList(g).length);
  if (empty !== undefined) {
    throw new XpuError('USAGE', `--${key} ${JSON.stringify(empty)} names nothing`, {
      details: { option: key, value: empty },
      hints: [`name at least one value, or leave --${key} out for its default`],
    });
  }
  return given.flatMap(splitList);
}
