// The offline-compiler role: Intel's offline compiler (ocloc and libocloc.so), which PyTorch Inductor runs to build native
// kernels and Triton asks about a device when there is no OpenCL GPU platform: both look for it on PATH.
import { EnvVars } from '../base/env-names.js';
import type { Role } from './role.js';

export const offlineCompiler: Role = {
  name: 'offline-compiler',
  title: 'the offline compiler ocloc',
  single: true,
  searchPaths: [{ name: EnvVars.PATH, dir: 'bin' }],
  // Built with compute-runtime's default (no unversioned ocloc), the packages of sid, Intel's releases and conda-forge
  // ship only bin/ocloc-<major>.<minor>.1; Triton and Inductor run `ocloc` by name.
  aliases: (layout) => [{ path: `bin/ocloc${layout.exeSuffix}`, versioned: new RegExp(`^bin/ocloc-(\\d+(?:\\.\\d+)*)${layout.exeSuffix.replace('.', '\\.')}$`) }],
};
