// The values some options and arguments take, shared by the option tables (registry.ts) and the commands that check them.
import { CI_SHELLS } from '../shells/ci-env.js';
import { SHELL_CHOICES, USER_SHELLS } from '../shells/index.js';
import { MODULE_SHELLS } from '../shells/modulefile.js';
import { SPACK_SHELL } from '../shells/spack.js';

/** What `xpu-setup env` prints for: each shell's env file (and the shells that read it), CI files, modulefiles, Spack. */
export const SHELL_NAMES: readonly string[] = [...SHELL_CHOICES, ...CI_SHELLS, ...MODULE_SHELLS, SPACK_SHELL];
/** Forms of `probe --format triton-env` that a child process sees: what a shell people type into evaluates, or a CI file. */
export const TRITON_ENV_SHELLS: readonly string[] = [...USER_SHELLS, ...CI_SHELLS];
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export const PROBE_FORMATS = ['text', 'json', 'triton-env', 'pytorch'] as const;
/** In report order; a unit test keeps this equal to the doctor's own list. */
export const DOCTOR_CHECK_IDS = [
  'platform', 'gpu', 'kernel-driver', 'firmware', 'rebar', 'wsl', 'render-node', 'user-driver', 'driver-version', 'ze-loader',
  'tracing-layer', 'headers', 'sdk-path', 'ur', 'env', 'compiler', 'ocloc', 'prefix', 'libraries', 'network', 'probe',
  'triton-env', 'smoke',
] as const;

/** The components of the shipped manifests (manifests/*.json), in manifest order; a unit test keeps the two equal. */
export const COMPONENT_NAMES = ['level-zero', 'unified-runtime', 'gpu-driver'] as const;

export const CACHE_ACTIONS = ['dir', 'size', 'clean'] as const;
