// `xpu-setup completion SHELL`: print the completion script for bash, zsh or fish.
import { XpuError } from '../../errors.js';
import type { CommandContext } from '../command.js';
import { bashCompletion, fishCompletion, zshCompletion } from '../completion.js';
import { nearest } from '../options.js';
import { COMMANDS, COMPLETION_SHELLS } from '../registry.js';

export async function run({ positionals }: CommandContext): Promise<number> {
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
  process.stdout.write(make(COMMANDS));
  return 0;
}
