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

/** What is wrong with the prefix's .icd file `text`, when it names anything but the prefix's ICD library `library`. */
export function icdProblem(text: string, library: string): string | undefined {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const others = lines.filter((l) => l !== library);
  if (!others.length && lines.length === 1) return undefined;
  if (!lines.length) return `it names no library (the prefix's is ${library})`;
  const shown = others.map((l) => JSON.stringify(l.length > 120 ? `${l.slice(0, 120)}...` : l)).slice(0, 3).join(', ');
  return others.length ? `it names ${shown}, not only the prefix's ${library}: the OpenCL loader opens each` : `it names ${library} ${lines.length} times`;
}

/** The prefix's own .icd file and the library it must name, by the prefix's path. */
export function prefixIcd(prefix: string, join: (...parts: string[]) => string): { file: string; library: string } {
  return { file: join(prefix, ICD_FILE), library: join(prefix, ICD_LIBRARY) };
}

export const openclIcd: Role = {
  name: 'opencl-icd',
  title: 'an OpenCL driver (ICD)',
  files: (t): RoleFile[] => [
    // Written over whatever the package shipped there (another path to the library, or other libraries too, which the
    // OpenCL loader would open each): one line, the prefix's own copy.
    { path: ICD_FILE, text: `${icdLibrary(t)}\n` },
    // The machine's ICDs, repeated under their own names; one of the same name as ours is ours.
    ...(t.systemIcds ?? []).filter((f) => `${VENDORS_DIR}/${f.name}` !== ICD_FILE).map((f) => ({ path: `${VENDORS_DIR}/${f.name}`, text: f.text })),
  ],
  env: (t): Record<string, string> => ({ [EnvVars.OCL_ICD_VENDORS]: t.layout.path.join(t.prefix, VENDORS_DIR) }),
};
