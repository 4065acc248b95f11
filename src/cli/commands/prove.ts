// `xpu-setup prove` (internal): setup's proof of a prefix, in the child process setup started with the prefix's
// environment; its reporter's words and its answer go to stdout as JSON lines that setup replays.
import { isXpuError } from '../../base/errors.js';
import { readPrefixState } from '../../prefix/prefix-state.js';
import { verifyStack } from '../../pipeline/probe.js';
import { answerLine, lineReporter } from '../../pipeline/prove.js';
import { str, type Command } from '../command.js';

export const proveCommand: Command = {
  name: 'prove',
  async run(ctx) {
    const write = (line: string) => process.stdout.write(line);
    const prefix = str(ctx.values, 'prefix')!;
    // Hints name the command the user ran (setup's, or the action's step), not this child's entry point.
    const namedAs = str(ctx.values, 'named-as');
    const deps = namedAs !== undefined && ctx.deps.started ? { ...ctx.deps, started: { ...ctx.deps.started, script: namedAs || undefined } } : ctx.deps;
    try {
      const state = await readPrefixState(prefix);
      const result = await verifyStack(prefix, {
        deps,
        reporter: lineReporter(write),
        smoke: ctx.values['no-smoke'] !== true,
        requireDevice: ctx.values['require-device'] === true,
        receipt: state.receipt,
      });
      write(answerLine({ result }));
      return 0;
    } catch (e) {
      if (!isXpuError(e)) throw e;
      write(answerLine({ error: e.toJSON() }));
      return 1;
    }
  },
};

export const run = proveCommand.run;
