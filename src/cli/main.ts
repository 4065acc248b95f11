// Entry point: picks the command, parses its options, renders errors, and returns the exit code.
import { parseArgs } from 'node:util';
import type { Deps } from '../deps.js';
import { realDeps } from '../real-deps.js';
import { XpuError } from '../errors.js';
import { commonOptions, type Command } from './command.js';
import { Output } from './output.js';

export const EXIT_OK = 0;
export const EXIT_FAIL = 1;
export const EXIT_USAGE = 2;

function helpText(commands: Command[]): string {
  const rows = commands.map((c) => `  ${c.name.padEnd(8)} ${c.summary}`);
  return [
    'usage: xpu-setup [command] [options]',
    '',
    'commands (default: setup):',
    ...rows,
    '',
    'Run `xpu-setup <command> --help` for a command\'s options.',
  ].join('\n');
}

export async function main(argv: string[], deps: Deps = realDeps()): Promise<number> {
  const first = argv[0];
  if (first === '--version') {
    process.stdout.write(`${(await import('../version.js')).VERSION}\n`);
    return EXIT_OK;
  }
  // Loaded after --version, which needs none of them (in the bundle, a chunk of its own).
  const { commands } = await import('./commands/index.js');
  let command: Command | undefined = commands[0];
  let rest = argv;
  if (first === 'help' || ((first === '--help' || first === '-h') && argv.length === 1)) {
    process.stdout.write(helpText(commands) + '\n');
    return EXIT_OK;
  }
  if (first !== undefined && !first.startsWith('-')) {
    command = commands.find((c) => c.name === first);
    rest = argv.slice(1);
    if (!command) {
      process.stderr.write(`error: unknown command "${first}"\n\n${helpText(commands)}\n`);
      return EXIT_USAGE;
    }
  }
  const cmd = command!;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...commonOptions, ...cmd.options }, allowPositionals: false, strict: true });
  } catch (e) {
    const json = rest.includes('--json');
    const err = new XpuError('USAGE', (e as Error).message, { hints: [`see: xpu-setup ${cmd.name} --help`] });
    new Output({ json, quiet: false, verbose: false }, deps.env).error(err);
    return EXIT_USAGE;
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (values.help) {
    process.stdout.write(`usage: ${cmd.usage}\n\n${cmd.summary}\n`);
    return EXIT_OK;
  }
  const out = new Output({ json: !!values.json, quiet: !!values.quiet, verbose: !!values.verbose }, deps.env);
  try {
    return await cmd.run({ deps, out, values, positionals: parsed.positionals });
  } catch (e) {
    out.error(e);
    return e instanceof XpuError && e.code === 'USAGE' ? EXIT_USAGE : EXIT_FAIL;
  }
}
