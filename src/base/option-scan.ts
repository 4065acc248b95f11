// A command line read before it is parsed: the arguments before `--`, and one option's value, for the answers given
// without loading the parser (`--version --json`'s prefix, the quick answer's cache directory).

/** The arguments before `--`: flags after it are values, not options. */
export function optionArgs(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return end === -1 ? [...argv] : argv.slice(0, end);
}

/** The last value given to `--name` (as `--name VALUE` or `--name=VALUE`) among `args`, without parsing the rest. */
export function optionValue(args: readonly string[], name: string): string | undefined {
  let found: string | undefined;
  args.forEach((a, i) => {
    if (a === `--${name}` && args[i + 1] !== undefined) found = args[i + 1];
    else if (a.startsWith(`--${name}=`)) found = a.slice(name.length + 3);
  });
  return found;
}
