// The values some options and arguments take, shared by the option tables (registry.ts) and the commands that check them.

export const SHELL_NAMES = ['sh', 'bash', 'zsh', 'fish', 'pwsh', 'cmd', 'json', 'dotenv', 'github', 'lmod', 'tcl', 'spack'] as const;
/** Forms of `probe --format triton-env` that a child process sees. */
export const TRITON_ENV_SHELLS = ['sh', 'fish', 'pwsh', 'dotenv', 'github'] as const;
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
