// The opencl-icd role: an OpenCL driver the ICD loader (libOpenCL.so.1) finds through a vendors directory of the
// prefix. Its .icd file names the library by absolute path in the prefix; OCL_ICD_VENDORS points the ICD loader at
// that directory, which replaces the system's, so the machine's own ICD files are repeated there (PoCL stays visible).
import { EnvVars } from '../base/env-names.js';
import type { Role, RoleFile, RoleTarget } from './role.js';

export const VENDORS_DIR = 'etc/OpenCL/vendors';
/** Where compute-runtime's ICD lands in the prefix (its packages put it in an intel-opencl directory of lib/). */
const ICD_LIBRARY = 'lib/intel-opencl/libigdrcl.so';
const ICD_FILE = `${VENDORS_DIR}/intel.icd`;

const icdLibrary = (t: RoleTarget): string => t.layout.path.join(t.prefix, ICD_LIBRARY);

/**
 * The shipped .icd file with each line that names this ICD's library (by any path: `/usr/lib/x86_64-linux-gnu/
 * intel-opencl/libigdrcl.so`, a conda build prefix) pointing at the prefix's copy; other lines are kept.
 */
export function rerootIcd(shipped: string, library: string): string {
  const base = library.slice(library.lastIndexOf('/') + 1);
  return shipped
    .split('\n')
    .map((l) => (l.trim() && l.trim().split('/').pop() === base ? library : l))
    .join('\n');
}

export const openclIcd: Role = {
  name: 'opencl-icd',
  title: 'an OpenCL driver (ICD)',
  files: (t): RoleFile[] => [
    { path: ICD_FILE, text: `${icdLibrary(t)}\n`, reroot: (shipped) => rerootIcd(shipped, icdLibrary(t)) },
    // The machine's ICDs, repeated under their own names; one of the same name as ours is ours.
    ...(t.systemIcds ?? []).filter((f) => `${VENDORS_DIR}/${f.name}` !== ICD_FILE).map((f) => ({ path: `${VENDORS_DIR}/${f.name}`, text: f.text })),
  ],
  env: (t): Record<string, string> => ({ [EnvVars.OCL_ICD_VENDORS]: t.layout.path.join(t.prefix, VENDORS_DIR) }),
};
