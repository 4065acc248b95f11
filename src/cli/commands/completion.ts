// `xpu-setup completion SHELL`: print the completion script for bash, zsh or fish.
import { XpuError } from '../../base/errors.js';
import type { Command, CommandContext } from '../command.js';
import { COMPLETION_SHELLS } from '../choices.js';
import { bashCompletion, fishCompletion, zshCompletion } from '../completion.js';
import { nearest, type CommandSpec } from '../options.js';

/** The completion command, given the commands it completes. */
export function completionCommand(commands: readonly CommandSpec[]): Command {
  return { name: 'completion', run: (ctx) => run(ctx, commands) };
}

async function run({ positionals }: CommandContext, commands: readonly CommandSpec[]): Promise<number> {
  const shell = positionals[0];
  if (shell === undefined) {
    throw new XpuError('USAGE', 'completion needs the shell: bash, zsh or fish', { hints: ['example: xpu-setup completion bash'] });
  }
  const makers = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion };
  const make = Object.hasOwn(makers, shell) ? makers[shell as keyof typeof makers] : undefined;
  if (!make) {
    const guess = nearest(shell, COMPLETION_SHELLS);
    throw new XpuError('USAGE', `no completion for "${shell}"`, { hints: [guess ? `did you mean ${guess}?` : `shells: ${COMPLETION_SHELLS.join(', ')}`] });
  }
  process.stdout.write(make(commands));
  return 0;
}
