// Entry point: picks the command from the registry, parses its options, renders errors, and returns the exit code.
// Only the command that runs is imported, so help, version and usage errors load none of the heavy modules.
import type { Deps } from '../base/deps.js';
import { isXpuError, XpuError } from '../base/errors.js';
import { expandHome } from '../platform/index.js';
import { optionArgs, optionValue } from '../base/option-scan.js';
import { commandHelp, EXIT_FAIL, EXIT_OK, EXIT_USAGE, generalHelp, nearest, parseCommandArgs, type CommandSpec } from './options.js';
import type { QuickEntry } from '../cache/quick-answers.js';
import { COMMANDS, findCommand } from './registry.js';

export { EXIT_FAIL, EXIT_OK, EXIT_USAGE } from './options.js';

/** True for the name of a command (bin/xpu-setup.js keeps a code cache per command). */
export function isCommandName(name: string): boolean {
  return findCommand(name) !== undefined;
}

const VERSION_FLAGS = new Set(['-v', '-V', '--version']);

async function printVersion(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const { VERSION } = await import('../base/version.js');
  if (!argv.includes('--json')) {
    process.stdout.write(`xpu-setup ${VERSION}\n`);
    return EXIT_OK;
  }
  const [path, { defaultPrefix }, { readPrefixState }] = await Promise.all([
    import('node:path'),
    import('../platform/index.js'),
    import('../prefix/prefix-state.js'),
  ]);
  // The --prefix value as given, without parsing the rest (the version answer must not fail on other options).
  const given = optionValue(argv, 'prefix');
  const prefix = path.resolve(given !== undefined ? expandHome(given, { env, platform: process.platform }) : defaultPrefix({ env, platform: process.platform }));
  const { receipt } = await readPrefixState(prefix);
  const doc = {
    schema: 1,
    name: 'xpu-setup',
    version: VERSION,
    node: process.version,
    prefix,
    installed: receipt
      ? {
          platform: receipt.platform,
          installedAt: receipt.installedAt,
          by: receipt.tool.version,
          components: receipt.components.map((c) => ({ name: c.name, version: c.version, source: c.source })),
        }
      : null,
  };
  process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  return EXIT_OK;
}

async function renderError(e: unknown, json: boolean, env: Record<string, string | undefined>): Promise<void> {
  const { Output } = await import('./output.js');
  new Output({ json, quiet: false, verbose: false }, env).error(e);
}

function unknownCommand(name: string): XpuError {
  const guess = nearest(name, COMMANDS.map((c) => c.name));
  return new XpuError('USAGE', `unknown command "${name}"`, {
    hints: [guess ? `did you mean \`xpu-setup ${guess}\`?` : `commands: ${COMMANDS.map((c) => c.name).join(', ')}`, 'see: xpu-setup --help'],
  });
}

/** `quick`: given by bin/xpu-setup.js, whose setup runs that change nothing may be answered from a record (cache/quick-answers.ts). */
export async function main(argv: string[], deps?: Deps, quick?: QuickEntry): Promise<number> {
  const env = deps?.env ?? process.env;
  const opts = optionArgs(argv);
  const json = opts.includes('--json');
  if (opts.some((a) => VERSION_FLAGS.has(a))) return printVersion(opts, env);

  let spec: CommandSpec = COMMANDS[0]!;
  let rest = argv;
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-')) {
    const named = findCommand(first);
    if (!named) {
      await renderError(unknownCommand(first), json, env);
      return EXIT_USAGE;
    }
    spec = named;
    rest = argv.slice(1);
  } else if (opts.includes('--help') || opts.includes('-h')) {
    process.stdout.write(generalHelp(COMMANDS) + '\n');
    return EXIT_OK;
  }

  let parsed;
  try {
    parsed = parseCommandArgs(spec, rest, (p) => expandHome(p, { env, platform: deps?.platform ?? process.platform }));
  } catch (e) {
    await renderError(e, json, env);
    return EXIT_USAGE;
  }
  if (parsed.values.help) {
    process.stdout.write(commandHelp(spec) + '\n');
    return EXIT_OK;
  }
  if (spec.name === 'help') {
    const topic = parsed.positionals[0];
    if (topic === undefined) {
      process.stdout.write(generalHelp(COMMANDS) + '\n');
      return EXIT_OK;
    }
    const target = findCommand(topic);
    if (!target) {
      await renderError(unknownCommand(topic), json, env);
      return EXIT_USAGE;
    }
    process.stdout.write(commandHelp(target) + '\n');
    return EXIT_OK;
  }

  const values = parsed.values;
  // `--format json` is the natural spelling of --json; errors then come as JSON too.
  if (values.format === 'json') values.json = true;
  const [mod, { Output }, realDeps] = await Promise.all([
    spec.load(),
    import('./output.js'),
    deps ? undefined : import('./real-deps.js').then((m) => m.realDeps()),
  ]);
  const runDeps = deps ?? realDeps!;
  const out = new Output({ json: !!values.json, quiet: !!values.quiet, verbose: !!values.verbose }, runDeps.env);
  await out.loadSpinners();
  try {
    return await mod.run({ deps: runDeps, out, values, positionals: parsed.positionals, ...(quick && !deps ? { quick } : {}) });
  } catch (e) {
    out.error(e);
    return isXpuError(e, 'USAGE') ? EXIT_USAGE : EXIT_FAIL;
  }
}

/**
 * A reader that goes away (`xpu-setup --help | head -1`) is not an error: stop quietly, as other tools do.
 * Only EPIPE is swallowed; any other stream error still surfaces.
 */
export function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
}
