// The kinds' names and the options that name their indexes, for the CLI's option table (help, completion, parsing),
// which must not load the kinds' modules (their index clients and archive readers) on every start. kinds/index.ts
// checks it lists KINDS' names. Imports nothing.

export const KIND_NAMES = ['conda', 'pypi', 'url', 'apt', 'github'] as const;

/**
 * The option that names a kind's index for a run in place of the manifests' own. Its values are recorded in the
 * request under the kind's name (records/plan.ts: KindIndexes), where the kind's module reads them: an option is this
 * entry and those reads, nothing else.
 */
export interface KindOption {
  /** The long option, without its dashes. */
  flag: string;
  /** The variable read when the option is not given (a list, split as the option's values, when it repeats). */
  env: string;
  /** The value's name for the help line. */
  value: string;
  description: string;
  /** What holds when neither the option nor its variable is given. */
  default: string;
  /** Several values, read in order (the option repeats, the variable is a list); else one. */
  repeats?: true;
  /** An index root, shown when a value is not an http(s) URL. */
  example: string;
  /** A value that is no URL as the kind takes it (a bare channel name); undefined: the value must be an http(s) URL. */
  shorthand?(value: string): string | undefined;
  /** The GitHub Action has an input of the option's name (action.yml declares it). */
  actionInput?: true;
}

/** By kind name, in the order help lists the options. */
export const KIND_OPTIONS: Readonly<Partial<Record<(typeof KIND_NAMES)[number], KindOption>>> = {
  conda: {
    flag: 'conda-channel',
    env: 'XPU_SETUP_CONDA_CHANNELS',
    value: 'URL|NAME',
    description: 'conda channel to read (a URL, or a name such as conda-forge)',
    default: "the manifest's channels (conda-forge)",
    repeats: true,
    example: 'https://conda.anaconda.org/conda-forge',
    // A bare channel name (`conda-forge`, `intel`), as conda takes it, is a channel on anaconda.org.
    shorthand: (v) => (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) ? `https://conda.anaconda.org/${v}` : undefined),
    actionInput: true,
  },
  pypi: {
    flag: 'index-url',
    env: 'XPU_SETUP_INDEX_URL',
    value: 'URL',
    description: 'Python package index (simple or JSON API) for wheels',
    default: 'https://pypi.org/simple',
    example: 'https://pypi.org/simple',
    actionInput: true,
  },
  github: {
    flag: 'github-url',
    env: 'XPU_SETUP_GITHUB_URL',
    value: 'URL',
    description: 'GitHub REST API root for release assets (a mirror of its /repos/... paths)',
    default: 'https://api.github.com',
    example: 'https://api.github.com',
  },
};

/** Each kind's option with the kind it names, in the table's order. */
export const kindOptions = (): [kind: string, option: KindOption][] => Object.entries(KIND_OPTIONS) as [string, KindOption][];

/** The option of the kind of that name, if it has one (a receipt may name a kind this version lacks). */
export const optionOf = (kind: string): KindOption | undefined => (KIND_OPTIONS as Partial<Record<string, KindOption>>)[kind];

/** That option as a command line spells it (`--index-url`), if the kind has one. */
export const flagOf = (kind: string): string | undefined => {
  const o = optionOf(kind);
  return o && `--${o.flag}`;
};
