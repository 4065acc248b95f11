// Every command's option table, help, examples and exit codes; its code is imported only when it runs.
import type { CommandSpec, Conflict, OptionDef } from './options.js';
import { TARGET_PLATFORMS } from '../platform/types.js';
import { KIND_NAMES, kindOptions } from '../kinds/names.js';
import { CACHE_ACTIONS, COMPLETION_SHELLS, COMPONENT_NAMES, DOCTOR_CHECK_IDS, PROBE_FORMATS, SHELL_NAMES, TRITON_ENV_SHELLS } from './choices.js';


const prefixOption = (what: string): OptionDef => ({
  name: 'prefix',
  type: 'string',
  value: 'DIR',
  description: what,
  env: 'XPU_SETUP_PREFIX',
  default: '$XDG_DATA_HOME/xpu-setup or ~/.local/share/xpu-setup (Windows: %LOCALAPPDATA%\\xpu-setup\\prefix)',
  complete: 'dir',
});

const planOptions: OptionDef[] = [
  prefixOption('where to install: include/, lib/, env files and the receipt'),
  { name: 'component', type: 'string', multiple: true, value: 'NAME', choices: COMPONENT_NAMES, description: 'install only these components', default: 'level-zero and unified-runtime (gpu-driver too where this host\'s Intel GPU has no usable driver)' },
  { name: 'source', type: 'string', multiple: true, value: 'KIND', choices: KIND_NAMES, description: 'take components only from these kinds of source', default: 'each component\'s sources in manifest order' },
  // Each kind's option that names its index, as the kinds declare it (kinds/names.ts).
  ...kindOptions().map(([, o]): OptionDef => ({ name: o.flag, type: 'string', ...(o.repeats && { multiple: true }), value: o.value, description: o.description, env: o.env, default: o.default })),
  { name: 'platform', type: 'string', value: 'PLATFORM', choices: [...TARGET_PLATFORMS], description: 'install for this platform (another one: nothing is run)', default: 'this machine' },
  { name: 'cache-dir', type: 'string', value: 'DIR', description: 'where downloaded archives are kept, by sha256', env: 'XPU_SETUP_CACHE_DIR', default: '$XDG_CACHE_HOME/xpu-setup or ~/.cache/xpu-setup', complete: 'dir' },
  { name: 'manifests', type: 'string', value: 'DIR', description: 'read component manifests from this directory', env: 'XPU_SETUP_MANIFESTS', default: 'the manifests shipped with xpu-setup', complete: 'dir' },
  { name: 'require', type: 'string', multiple: true, value: 'CONSTRAINT', description: "a version floor or pin such as 'level-zero>=1.9', in each source's own version order", env: 'XPU_SETUP_REQUIRE', default: 'the manifests\' floors (level-zero>=1.9)' },
  {
    name: 'match-torch',
    type: 'string',
    optionalValue: true,
    value: 'PYTHON',
    description: "pin the runtime packages (intel-cmplr-lib-ur, umf, tcmlib) to the exact versions this Python's torch runs with, read from its importlib.metadata; remembered in the prefix",
    default: 'without a value: the active environment\'s python (VIRTUAL_ENV, CONDA_PREFIX), else python3 on PATH',
    complete: 'file',
  },
  { name: 'no-match-torch', type: 'boolean', description: 'stop matching the PyTorch a previous run recorded' },
  {
    name: 'include-loader-dll',
    type: 'boolean',
    description: "Windows: also install the package's ze_loader.dll into bin/ (left out by default: SYCL's proxy loader trusts only System32's, and a copy beside the UR adapters would be found first by Windows' search); remembered in the prefix",
  },
  { name: 'no-include-loader-dll', type: 'boolean', description: 'stop installing the ze_loader.dll a previous run asked for' },
  {
    name: 'gpu',
    type: 'string',
    multiple: true,
    value: 'NAME|PCI-ID',
    description: "plan the GPU driver for these GPUs instead of this machine's (a login node for its compute nodes, an image, CI): a family (bmg, dg2, pvc, ...) or a PCI device id (0xe20b); `host` goes back to this machine's; remembered in the prefix",
    env: 'XPU_SETUP_GPU',
    default: "this machine's Intel GPUs",
  },
  { name: 'remove', type: 'string', multiple: true, value: 'NAME', choices: COMPONENT_NAMES, description: 'take an installed component out of the prefix (the only way a run removes one)' },
  { name: 'locked', type: 'boolean', description: 'install exactly the lockfile (see --lockfile); no index is asked' },
  { name: 'lockfile', type: 'string', value: 'FILE', description: 'the lockfile --locked reads', default: './xpu-setup.lock.json', complete: 'file' },
  { name: 'from', type: 'string', value: 'DIR|URL', description: 'install from a bundle (xpu-setup bundle) with no other network', complete: 'dir' },
  { name: 'offline', type: 'boolean', description: 'the download cache only: from --locked, --from or the plan recorded in the prefix' },
];

/** Options that only pick what to resolve: what `lock` and `bundle` take. */
const resolveOptions: OptionDef[] = [
  {
    name: 'prefix',
    type: 'string',
    value: 'DIR',
    description: "extend the request recorded in this prefix (its components, sources, channels, floors); without it, only this command line's request counts",
    complete: 'dir',
  },
  ...planOptions.filter((o) => !['prefix', 'remove', 'locked', 'from', 'offline', 'platform'].includes(o.name)),
];

const setupExit: [number, string][] = [
  [0, 'installed or already up to date (a missing GPU is reported, not an error, unless --require-device)'],
  [1, 'something failed: nothing usable was installed, or verification failed'],
  [2, 'usage error: an unknown option, value or combination'],
];

/** What setup does after the install: build, probe, smoke, limits. `plan` takes them too, to say what setup would do. */
const runOptions: OptionDef[] = [
  { name: 'dry-run', type: 'boolean', description: 'resolve and print the plan, change nothing (as `xpu-setup plan`; plan takes it and changes nothing anyway)' },
  { name: 'refdriver', type: 'boolean', description: 'build the CPU reference Level Zero driver into the prefix and select it (no Intel GPU needed)' },
  { name: 'no-refdriver', type: 'boolean', description: 'stop selecting the reference driver a previous run recorded' },
  { name: 'no-smoke', type: 'boolean', description: 'probe the devices but do not run the kernel smoke test' },
  { name: 'require-device', type: 'boolean', description: 'fail (exit 1) when no device can run anything' },
  { name: 'no-probe', type: 'boolean', description: 'install only: no addon build, probe or kernel (an image built without the GPU)' },
  { name: 'refresh', type: 'boolean', description: 'ask the indexes again, even within 10 minutes of a plan for the same request and within the max-age of their cached answers (unchanged ones are not downloaded again)' },
  { name: 'verify', type: 'boolean', description: 're-read every installed file, not only those whose size or mtime differ from the receipt' },
  { name: 'probe', type: 'boolean', description: 'build and probe again even when the receipt holds the answer for unchanged drivers and environment' },
  { name: 'smoke', type: 'boolean', description: 'run the kernel again even when the receipt says it passed under unchanged drivers and environment' },
  { name: 'max-unpacked', type: 'string', value: 'SIZE', env: 'XPU_SETUP_MAX_UNPACKED', default: '2GiB', description: 'the most one archive may unpack to, against archive bombs (8GiB, 500MiB; 0 = no limit)' },
  { name: 'max-ratio', type: 'string', value: 'N', env: 'XPU_SETUP_MAX_RATIO', default: '200', description: 'the largest unpacked/packed ratio of one archive once past 32 MiB (0 = no limit)' },
];

const matchTorchConflict: Conflict = { a: 'match-torch', b: 'no-match-torch', why: 'pick one of --match-torch and --no-match-torch' };
const loaderDllConflict: Conflict = { a: 'include-loader-dll', b: 'no-include-loader-dll', why: 'pick one of --include-loader-dll and --no-include-loader-dll' };

const setupConflicts: Conflict[] = [
  matchTorchConflict,
  loaderDllConflict,
  { a: 'refdriver', b: 'platform', when: (v) => v.platform !== undefined, why: '--refdriver builds and runs code on this machine, so it cannot be combined with --platform' },
  { a: 'dry-run', b: 'require-device', why: '--dry-run runs nothing, so there is no device to require' },
  { a: 'refdriver', b: 'no-refdriver', why: 'pick one of --refdriver and --no-refdriver' },
  { a: 'from', b: 'locked', why: '--from installs the bundle\'s own lockfile: drop --locked' },
  { a: 'no-probe', b: 'probe', why: '--no-probe skips the probe that --probe asks to run again' },
  { a: 'no-smoke', b: 'smoke', why: '--no-smoke skips the kernel that --smoke asks to run again' },
  { a: 'no-probe', b: 'smoke', why: '--no-probe runs no probe and so no kernel, which --smoke asks to run again: pick one' },
  { a: 'offline', b: 'refresh', why: '--offline asks no index and --refresh asks every index again: pick one' },
  { a: 'from', b: 'conda-channel', why: '--from installs from the bundle alone: drop --conda-channel (a bundle is a conda channel itself)' },
  { a: 'from', b: 'index-url', why: '--from installs from the bundle alone: drop --index-url (a bundle is a simple index itself)' },
];

const setup: CommandSpec = {
  name: 'setup',
  summary: 'Install Level Zero, Unified Runtime and (asked, or for a GPU without one) the GPU driver into a prefix, verified, then build, probe and smoke-test (the default).',
  options: [...planOptions, ...runOptions],
  conflicts: setupConflicts,
  examples: [
    ['npx xpu-setup', 'install into the default prefix and check it works'],
    ['xpu-setup --prefix ~/xpu --component level-zero', 'only Level Zero, into ~/xpu'],
    ['xpu-setup --component level-zero,gpu-driver', 'Level Zero and the Intel GPU user-mode driver (Linux; its ocloc works without a GPU)'],
    ['xpu-setup --conda-channel conda-forge --index-url https://pypi.org/simple', 'name the indexes explicitly'],
    ['xpu-setup --refdriver', 'no Intel GPU: run the smoke test on the CPU reference driver'],
    ['xpu-setup --prefix ~/xpu', 'repeat the request recorded in ~/xpu (a bare re-run)'],
    ["xpu-setup --require 'level-zero>=1.20'", 'a version floor'],
    ['xpu-setup --locked --offline', 'exactly ./xpu-setup.lock.json, from the cache only'],
    ['xpu-setup --from https://artifacts.example/xpu-bundle/', 'from a bundle, with no other network'],
  ],
  exitCodes: setupExit,
  load: () => import('./commands/setup.js'),
};

const plan: CommandSpec = {
  name: 'plan',
  summary: 'Say what setup would change: the exact archives (URLs, sha256, sizes), or "nothing to do"; takes every option of setup.',
  options: [...planOptions, ...runOptions],
  conflicts: setupConflicts,
  examples: [
    ['xpu-setup plan', 'what setup would install into the default prefix'],
    ['xpu-setup plan --platform win-x64 --json', 'the plan for a Windows machine, as JSON'],
  ],
  exitCodes: [
    [0, 'the plan is installable (or nothing to do)'],
    [1, 'setup would fail: nothing installable, or the prefix is not xpu-setup\'s'],
    [2, 'usage error'],
  ],
  load: () => import('./commands/plan.js'),
};

const env: CommandSpec = {
  name: 'env',
  summary: 'Print the environment of an installed prefix for your shell.',
  argument: { name: 'SHELL', description: 'the shell to print for (like --shell)', choices: SHELL_NAMES, optional: true },
  options: [
    prefixOption('the installed prefix'),
    { name: 'shell', type: 'string', value: 'SHELL', choices: SHELL_NAMES, description: 'sh (bash, zsh, dash), fish, pwsh, cmd, json; dotenv (literal NAME=value lines), github (appended to GITHUB_ENV / GITHUB_PATH), lmod or tcl (a modulefile for Lmod or Environment Modules), spack (a packages.yaml entry declaring the prefix an external oneapi-level-zero)', env: 'SHELL', default: 'the shell $SHELL names (Windows: pwsh)' },
    { name: 'compilers', type: 'boolean', description: 'only what compilers, pkg-config, CMake and Triton read: leaves LD_LIBRARY_PATH (Windows: PATH) alone, so a PyTorch wheel keeps its own loaders' },
    { name: 'unset', type: 'boolean', description: 'print the commands that take the prefix back out of the current environment' },
  ],
  conflicts: [
    { a: 'shell', b: 'json', when: (v) => v.shell !== 'json', why: '--json prints the variables as JSON; --shell picks another syntax: pick one' },
    { a: 'unset', b: 'compilers', why: '--unset takes out everything the prefix added, whichever mode added it: drop --compilers' },
  ],
  examples: [
    ['eval "$(xpu-setup env)"', 'take on the prefix in this sh/bash/zsh shell'],
    ['eval "$(xpu-setup env --compilers)"', 'only for building: the loader search path stays as it is'],
    ['eval "$(xpu-setup env --unset)"', 'take the prefix back out (a sourced env.sh also defines xpu_setup_deactivate)'],
    ['xpu-setup env fish | source', 'the same in fish'],
    ['xpu-setup env --shell lmod > ~/modulefiles/xpu-setup/1.lua', 'a modulefile for Lmod (tcl: Environment Modules)'],
    ['xpu-setup env --json', 'the variables as JSON'],
  ],
  exitCodes: [[0, 'printed'], [1, 'the prefix has no receipt (not installed)'], [2, 'usage error']],
  load: () => import('./commands/env.js'),
};

const formatConflicts: Conflict[] = [
  { a: 'format', b: 'json', when: (v) => v.format !== 'json', why: '--json prints the whole report as JSON; --format picks another output: pick one' },
  { a: 'format', b: 'verbose', when: (v) => v.format !== 'text', why: '--verbose details the text output; --format picks another output: pick one' },
  { a: 'json', b: 'verbose', why: '--json already holds every detail --verbose would print; drop --verbose' },
];

/** Which Level Zero install and device probe and smoke use. */
const runtimeOptions = (what: string): OptionDef[] => [
  prefixOption(`the prefix whose loader to use (default: the default prefix when it has a loader, else the system's)`),
  { name: 'system', type: 'boolean', description: `use the system's own Level Zero loader (or a oneAPI install under ONEAPI_ROOT), not a prefix` },
  { name: 'device', type: 'string', value: 'ID', description: `${what} only this device: "0.1" (driver.device) or a plain index as sycl-ls counts them` },
];
const runtimeConflicts: Conflict[] = [{ a: 'prefix', b: 'system', why: '--system uses the loader outside any prefix: drop --prefix' }];

const probe: CommandSpec = {
  name: 'probe',
  summary: 'List Level Zero devices: architecture, feature flags and where each answer came from.',
  options: [
    ...runtimeOptions('list'),
    { name: 'format', type: 'string', value: 'FORMAT', choices: PROBE_FORMATS, description: 'text, json (as --json), triton-env (lines your shell evaluates: export for sh, set -gx for fish) or pytorch (its property names)', default: 'text' },
    { name: 'shell', type: 'string', value: 'FORM', choices: TRITON_ENV_SHELLS, description: 'with --format triton-env: sh (export lines), fish (set -gx), pwsh ($env:), dotenv (NAME=value lines) or github (appended to GITHUB_ENV)', default: 'the shell $SHELL names (Windows: pwsh)' },
  ],
  conflicts: [...formatConflicts, ...runtimeConflicts],
  examples: [
    ['xpu-setup probe', 'one line per device'],
    ['xpu-setup probe --system --device 0.1', 'the second device of the first driver of the system\'s own loader'],
    ['eval "$(xpu-setup probe --format triton-env)"', 'set TRITON_INTEL_DEVICE_ARCH and TRITON_INTEL_DEVICE_EXTENSIONS'],
  ],
  exitCodes: [[0, 'at least one device'], [1, 'no device, or the loader could not be used'], [2, 'usage error']],
  load: () => import('./commands/probe.js'),
};

const smoke: CommandSpec = {
  name: 'smoke',
  summary: 'Run a SPIR-V vector-add kernel through Level Zero, check every value and time it.',
  options: [
    ...runtimeOptions('run on'),
    { name: 'ocloc', type: 'string', value: 'PATH', description: 'also compile the kernel with this ocloc and check the zebin', default: "the prefix's bin/ocloc, else the first on PATH" },
    { name: 'ocloc-device', type: 'string', value: 'NAME', description: 'the GPU ocloc compiles for: a name (dg2, pvc) or an IP version (12.55.8); with no device to run on, the compile alone is the test', default: 'the IP version of the device the kernel ran on' },
  ],
  conflicts: runtimeConflicts,
  examples: [
    ['xpu-setup smoke --json', 'the result and timings as JSON'],
    ['xpu-setup smoke --ocloc-device dg2', 'no GPU here (CI): prove ocloc and its compiler make a zebin for an Arc A-series GPU'],
  ],
  exitCodes: [[0, 'the kernel ran and every value was right (and ocloc, when found, made a zebin); or, with --ocloc-device and no device, ocloc made a zebin'], [1, 'no device, a wrong result, or ocloc failed'], [2, 'usage error']],
  load: () => import('./commands/smoke.js'),
};

const doctor: CommandSpec = {
  name: 'doctor',
  summary: 'Say what is wrong with this machine\'s Intel GPU stack and how to fix it.',
  options: [
    prefixOption('the prefix to check'),
    { name: 'strict', type: 'boolean', description: 'warnings fail too (exit 1)' },
    { name: 'smoke', type: 'boolean', description: 'also run the kernel smoke test' },
    { name: 'check', type: 'string', multiple: true, value: 'ID', choices: DOCTOR_CHECK_IDS, description: 'run only these checks', default: 'all but smoke' },
  ],
  conflicts: [{ a: 'json', b: 'verbose', why: '--json already holds every fact --verbose would print; drop --verbose' }],
  examples: [
    ['xpu-setup doctor', 'every check, with a fix under each problem'],
    ['xpu-setup doctor --quiet', 'only the failures'],
    ['xpu-setup doctor --check ze-loader,headers --verbose', 'two checks, with the facts behind them'],
  ],
  exitCodes: [[0, 'nothing failed (warnings allowed unless --strict)'], [1, 'a check failed'], [2, 'usage error'], [3, 'the doctor itself could not run']],
  load: () => import('./commands/doctor.js'),
};

const lock: CommandSpec = {
  name: 'lock',
  summary: 'Resolve once and write xpu-setup.lock.json: per platform every archive\'s URL, size, sha256 and map.',
  options: [
    ...resolveOptions.filter((o) => o.name !== 'lockfile'),
    { name: 'platform', type: 'string', multiple: true, value: 'PLATFORM', choices: [...TARGET_PLATFORMS], description: 'the platforms to lock', default: 'this machine' },
    { name: 'lockfile', type: 'string', value: 'FILE', description: 'where to write it', default: './xpu-setup.lock.json', complete: 'file' },
    { name: 'refdriver', type: 'boolean', description: 'record --refdriver in the lockfile\'s request' },
  ],
  conflicts: [matchTorchConflict, loaderDllConflict],
  examples: [
    ['xpu-setup lock --platform linux-x64,win-x64', 'lock both platforms; commit the file'],
    ['xpu-setup --locked', 'then install exactly that'],
  ],
  exitCodes: [[0, 'written'], [1, 'a platform could not be resolved'], [2, 'usage error']],
  load: () => import('./commands/lock.js'),
};

const bundle: CommandSpec = {
  name: 'bundle',
  summary: 'Write a directory that is a conda channel, a PEP 503 simple index and a lockfile; `xpu-setup --from DIR|URL` installs it.',
  options: [
    ...resolveOptions,
    { name: 'platform', type: 'string', multiple: true, value: 'PLATFORM', choices: [...TARGET_PLATFORMS], description: 'the platforms to bundle (a Windows bundle is prepared on Linux too)' },
    { name: 'out', type: 'string', value: 'DIR', description: 'the bundle directory (other platforms already in it are kept)', complete: 'dir' },
    { name: 'locked', type: 'boolean', description: 'bundle exactly the lockfile (see --lockfile); no index is asked' },
  ],
  conflicts: [matchTorchConflict, loaderDllConflict],
  examples: [
    ['xpu-setup bundle --platform linux-x64,win-x64 --out ./xpu-bundle', 'on a machine with the internet'],
    ['xpu-setup --from ./xpu-bundle', 'on the target (or serve the directory and pass its URL)'],
  ],
  exitCodes: [[0, 'written'], [1, 'resolving or downloading failed'], [2, 'usage error']],
  load: () => import('./commands/bundle.js'),
};

const cache: CommandSpec = {
  name: 'cache',
  summary: 'Print where the cache is and what it takes, or empty it (archives, index answers, plans, code cache).',
  argument: { name: 'ACTION', description: 'print the cache directory, the size of each part, or remove them', choices: CACHE_ACTIONS },
  options: [
    { name: 'cache-dir', type: 'string', value: 'DIR', description: 'the cache directory', env: 'XPU_SETUP_CACHE_DIR', default: '$XDG_CACHE_HOME/xpu-setup or ~/.cache/xpu-setup', complete: 'dir' },
    { name: 'older-than', type: 'string', value: 'AGE', description: 'with clean: only files not read or written for this long (30d, 12h, 2w, 90m)' },
  ],
  examples: [
    ['xpu-setup cache size', 'what the archives, index answers, plans and code cache take'],
    ['xpu-setup cache clean --older-than 30d', 'remove what has not been used for 30 days'],
    ['du -sh "$(xpu-setup cache dir)"', 'the directory, for other tools'],
  ],
  exitCodes: [[0, 'printed, or cleaned'], [1, 'a file could not be removed'], [2, 'usage error']],
  load: () => import('./commands/cache.js'),
};

const uninstall: CommandSpec = {
  name: 'uninstall',
  summary: 'Remove a prefix xpu-setup made (never another directory), and name the shell start-up lines that still load it.',
  options: [prefixOption('the prefix to remove')],
  examples: [
    ['xpu-setup uninstall', 'remove the default prefix'],
    ['xpu-setup uninstall --prefix ~/xpu', 'remove ~/xpu'],
  ],
  exitCodes: [[0, 'removed'], [1, 'nothing there, or not a prefix xpu-setup made (nothing removed)'], [2, 'usage error']],
  load: () => import('./commands/uninstall.js'),
};

const completion: CommandSpec = {
  name: 'completion',
  summary: 'Print a shell completion script (bash, zsh or fish).',
  argument: { name: 'SHELL', description: 'the shell', choices: COMPLETION_SHELLS },
  options: [],
  examples: [
    ['xpu-setup completion bash > ~/.local/share/bash-completion/completions/xpu-setup', 'bash'],
    ['xpu-setup completion zsh > "${fpath[1]}/_xpu-setup"', 'zsh'],
    ['xpu-setup completion fish > ~/.config/fish/completions/xpu-setup.fish', 'fish'],
  ],
  exitCodes: [[0, 'printed'], [2, 'usage error']],
  // Handed the command list, so the completion module does not import this file.
  load: async () => (await import('./commands/completion.js')).completionCommand(COMMANDS),
};

const help: CommandSpec = {
  name: 'help',
  summary: 'Show help for a command.',
  argument: { name: 'COMMAND', description: 'the command', optional: true },
  options: [],
  examples: [['xpu-setup help doctor', 'the same as `xpu-setup doctor --help`']],
  exitCodes: [[0, 'printed'], [2, 'no such command']],
  // Answered in main.ts without loading anything.
  load: () => Promise.reject(new Error('help is answered by main')),
};

/** The first entry is the default command. */
export const COMMANDS: readonly CommandSpec[] = [setup, plan, lock, bundle, env, probe, smoke, doctor, cache, uninstall, completion, help];

/**
 * Setup's proof, run by setup itself in a child process started with the prefix's environment (pipeline/prove.ts):
 * in no help, completion or docs, and found by name only.
 */
const prove: CommandSpec = {
  name: 'prove',
  summary: 'Build, probe and smoke-test a prefix in this process (setup starts it with the prefix\'s environment).',
  options: [
    prefixOption('the installed prefix'),
    { name: 'no-smoke', type: 'boolean', description: 'no kernel' },
    { name: 'require-device', type: 'boolean', description: 'no device is an error' },
    { name: 'named-as', type: 'string', description: "the script setup ran as, so that hints repeat setup's own command" },
  ],
  examples: [],
  exitCodes: [[0, 'answered (JSON lines on stdout)'], [1, 'failed (its error as the last line)']],
  load: () => import('./commands/prove.js'),
};

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name) ?? (name === prove.name ? prove : undefined);
}
