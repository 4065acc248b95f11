// The name of every environment variable xpu-setup reads or writes, each spelled once; what each one means is here.

export const EnvVars = {
  // xpu-setup's own settings (each also a command-line option; see README.md). The variables of the options that
  // name a kind's index (XPU_SETUP_CONDA_CHANNELS, XPU_SETUP_INDEX_URL, ...) are the kinds' own: kinds/names.ts.
  /** The prefix to install into or to read (`--prefix`). */
  XPU_SETUP_PREFIX: 'XPU_SETUP_PREFIX',
  /** The download cache (`--cache-dir`). */
  XPU_SETUP_CACHE_DIR: 'XPU_SETUP_CACHE_DIR',
  /** Component manifests other than the shipped ones (`--manifests`). */
  XPU_SETUP_MANIFESTS: 'XPU_SETUP_MANIFESTS',
  /** A token for the GitHub API (its origin alone): more requests an hour than the 60 an address gets without one. */
  XPU_SETUP_GITHUB_TOKEN: 'XPU_SETUP_GITHUB_TOKEN',
  /** The usual name of that token, read when XPU_SETUP_GITHUB_TOKEN is unset. */
  GITHUB_TOKEN: 'GITHUB_TOKEN',
  /** The GitHub API of the server a workflow runs on (GitHub Enterprise Server's own): where the token goes. */
  GITHUB_API_URL: 'GITHUB_API_URL',
  /** The most one archive may unpack to (`--max-unpacked`). */
  XPU_SETUP_MAX_UNPACKED: 'XPU_SETUP_MAX_UNPACKED',
  /** The largest unpacked/packed ratio of one archive (`--max-ratio`). */
  XPU_SETUP_MAX_RATIO: 'XPU_SETUP_MAX_RATIO',
  /** Version constraints, comma-separated (`--require`), e.g. `level-zero>=1.9`. */
  XPU_SETUP_REQUIRE: 'XPU_SETUP_REQUIRE',
  /** GPUs to plan for, comma- or space-separated (`--gpu`), e.g. `bmg,0xe20b`. */
  XPU_SETUP_GPU: 'XPU_SETUP_GPU',
  // Network and index limits (src/net/config.ts reads them; README's network table says what each does).
  XPU_SETUP_HTTP_ATTEMPTS: 'XPU_SETUP_HTTP_ATTEMPTS',
  XPU_SETUP_HTTP_RETRY_SECONDS: 'XPU_SETUP_HTTP_RETRY_SECONDS',
  XPU_SETUP_HTTP_BACKOFF_SECONDS: 'XPU_SETUP_HTTP_BACKOFF_SECONDS',
  XPU_SETUP_DOWNLOAD_DEADLINE_SECONDS: 'XPU_SETUP_DOWNLOAD_DEADLINE_SECONDS',
  XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND: 'XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND',
  XPU_SETUP_DOWNLOAD_RATE_WINDOW_SECONDS: 'XPU_SETUP_DOWNLOAD_RATE_WINDOW_SECONDS',
  XPU_SETUP_ALLOW_HTTP_REDIRECT: 'XPU_SETUP_ALLOW_HTTP_REDIRECT',
  /** One index read (a repodata file, a shard index or shard, a project page, a METADATA), all attempts included. */
  XPU_SETUP_INDEX_DEADLINE_SECONDS: 'XPU_SETUP_INDEX_DEADLINE_SECONDS',
  /** The most bytes one index body may be as sent (a repodata file, compressed or not; a project page). */
  XPU_SETUP_MAX_INDEX_BYTES: 'XPU_SETUP_MAX_INDEX_BYTES',
  /** The most a repodata document may decompress to. */
  XPU_SETUP_MAX_REPODATA_DECODED: 'XPU_SETUP_MAX_REPODATA_DECODED',
  /** The most a shard index (repodata_shards.msgpack.zst) may decompress to. */
  XPU_SETUP_MAX_SHARD_INDEX_DECODED: 'XPU_SETUP_MAX_SHARD_INDEX_DECODED',
  /** The most one shard may decompress to. */
  XPU_SETUP_MAX_SHARD_DECODED: 'XPU_SETUP_MAX_SHARD_DECODED',
  /** The most bytes one wheel's METADATA may be. */
  XPU_SETUP_MAX_METADATA_BYTES: 'XPU_SETUP_MAX_METADATA_BYTES',
  /** The most bytes one JSON index document may be (a GitHub release list). */
  XPU_SETUP_MAX_JSON_BYTES: 'XPU_SETUP_MAX_JSON_BYTES',
  /** The most releases of one GitHub source tried before it is given up. */
  XPU_SETUP_MAX_CANDIDATES: 'XPU_SETUP_MAX_CANDIDATES',
  /** The deepest nesting of arrays and maps a msgpack or JSON index document may have. */
  XPU_SETUP_MAX_NESTING: 'XPU_SETUP_MAX_NESTING',
  /** The most requirements one dependency closure follows. */
  XPU_SETUP_MAX_REQUIREMENTS: 'XPU_SETUP_MAX_REQUIREMENTS',
  /** The most bytes of output kept from one child process (a compiler, python, apt-get), stdout and stderr each. */
  XPU_SETUP_MAX_CHILD_OUTPUT: 'XPU_SETUP_MAX_CHILD_OUTPUT',
  /** Test hook: the smoke test runs this SPIR-V (same kernel contract) instead of the shipped vector add. */
  XPU_SETUP_SMOKE_SPV: 'XPU_SETUP_SMOKE_SPV',
  /** `0`: bin/xpu-setup.js neither reads nor writes V8's code cache beside the bundle (it only saves compile time), and `cache` leaves it out. */
  XPU_SETUP_CODE_CACHE: 'XPU_SETUP_CODE_CACHE',
  /** `0`: a setup run that would change nothing never answers from the record of an earlier one (src/cache/quick-answers.ts). */
  XPU_SETUP_QUICK: 'XPU_SETUP_QUICK',
  /** Read by native/refdriver: the real GPU whose identity the CPU reference driver reports. */
  XPU_SETUP_REFDRIVER_PROFILE: 'XPU_SETUP_REFDRIVER_PROFILE',
  /** Read by native/refdriver: the driver version to report instead of the profile's (`major.minor.build[+hotfix]`). */
  XPU_SETUP_REFDRIVER_DRIVER_VERSION: 'XPU_SETUP_REFDRIVER_DRIVER_VERSION',
  /** Read by native/refdriver: the IP version to report instead of the profile's (`major.minor.revision`). */
  XPU_SETUP_REFDRIVER_IP: 'XPU_SETUP_REFDRIVER_IP',

  // Read by the Level Zero loader; setup sets it in-process and in the env files to select the reference driver.
  /** Comma-separated driver libraries the loader loads instead of the default ones. */
  ZE_ENABLE_ALT_DRIVERS: 'ZE_ENABLE_ALT_DRIVERS',

  // Read by the loader, UR or SYCL; set by people, each can hide devices or break the stack (the doctor's env check).
  ZE_AFFINITY_MASK: 'ZE_AFFINITY_MASK',
  ZE_FLAT_DEVICE_HIERARCHY: 'ZE_FLAT_DEVICE_HIERARCHY',
  ZE_ENABLE_NULL_DRIVER: 'ZE_ENABLE_NULL_DRIVER',
  ZE_ENABLE_VALIDATION_LAYER: 'ZE_ENABLE_VALIDATION_LAYER',
  ZE_ENABLE_TRACING_LAYER: 'ZE_ENABLE_TRACING_LAYER',
  ZE_ENABLE_LOADER_DEBUG_TRACE: 'ZE_ENABLE_LOADER_DEBUG_TRACE',
  ONEAPI_DEVICE_SELECTOR: 'ONEAPI_DEVICE_SELECTOR',
  /** The root of a oneAPI install, where the probe looks for a loader when the system has none. */
  ONEAPI_ROOT: 'ONEAPI_ROOT',
  SYCL_DEVICE_FILTER: 'SYCL_DEVICE_FILTER',
  UR_ADAPTERS_FORCE_LOAD: 'UR_ADAPTERS_FORCE_LOAD',

  // Set by Python environments' activation: where the active Python is (its packages name the installed Triton, torch).
  VIRTUAL_ENV: 'VIRTUAL_ENV',
  CONDA_PREFIX: 'CONDA_PREFIX',

  // Written into the env files for compilers and Triton.
  /** The Level Zero SDK root Triton compiles against. */
  LEVEL_ZERO_V1_SDK_PATH: 'LEVEL_ZERO_V1_SDK_PATH',
  /** The older name of LEVEL_ZERO_V1_SDK_PATH. */
  ZE_PATH: 'ZE_PATH',
  /** The probed device architecture, so Triton need not ask PyTorch. */
  TRITON_INTEL_DEVICE_ARCH: 'TRITON_INTEL_DEVICE_ARCH',
  /** The probed device extensions, space-separated. */
  TRITON_INTEL_DEVICE_EXTENSIONS: 'TRITON_INTEL_DEVICE_EXTENSIONS',

  // Read to tell whether the CPU reference driver can be built and run here (what the compiler and driver read).
  /** Read by native/refdriver: the llvm-spirv program to use instead of llvm-spirv-15 on PATH. */
  XPU_SETUP_LLVM_SPIRV: 'XPU_SETUP_LLVM_SPIRV',
  /** Read by the OpenCL ICD loader: where vendor ICD files are, instead of /etc/OpenCL/vendors. */
  OCL_ICD_VENDORS: 'OCL_ICD_VENDORS',
  PATH: 'PATH',
  CPATH: 'CPATH',

  // GitHub Actions' files for a step's results (`env --shell github`, the action): appended to, never read back.
  /** Lines `NAME=value` (or heredoc form) become environment variables of later steps. */
  GITHUB_ENV: 'GITHUB_ENV',
  /** Each line is a directory put in front of PATH for later steps. */
  GITHUB_PATH: 'GITHUB_PATH',
  /** Step outputs, same format as GITHUB_ENV. */
  GITHUB_OUTPUT: 'GITHUB_OUTPUT',
  C_INCLUDE_PATH: 'C_INCLUDE_PATH',
  LIBRARY_PATH: 'LIBRARY_PATH',
} as const;

/**
 * Prefixes of the variables that can change what the loader, UR, OpenCL or the reference driver answer: a change to
 * any of them (or to LD_LIBRARY_PATH) makes setup probe again instead of reporting the receipt's last answer.
 */
export const PROBE_ENV_PREFIXES = ['ZE_', 'UR_', 'ONEAPI_', 'SYCL_', 'OCL_ICD', 'POCL_', 'XPU_SETUP_REFDRIVER', 'XPU_SETUP_SMOKE', 'LD_LIBRARY_PATH'] as const;

/**
 * Prefixes of the variables the loader, its drivers and the reference driver read from this process's own
 * environment when they are loaded into it: a run's values of them are put there before the loader loads.
 */
export const LOADER_ENV_PREFIXES = ['ZE_', 'XPU_SETUP_REFDRIVER'] as const;

/** The variables setup writes from its own choices (driver, probe answers); a new run replaces all of them. */
export const RUN_ENV_VARS = [EnvVars.ZE_ENABLE_ALT_DRIVERS, EnvVars.TRITON_INTEL_DEVICE_ARCH, EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS] as const;
