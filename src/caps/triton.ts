// Which of the two Triton variables each Triton release reads, from its Intel backend's source (intel-xpu-backend-for-triton).
import type { Deps } from '../base/deps.js';
import type { Finding } from '../base/finding.js';
import { readPythonDistributions } from '../machine/python-dists.js';

/** The Python distributions that carry Triton's Intel backend, in the order their version is taken. */
export const TRITON_DISTS = ['pytorch-triton-xpu', 'triton-xpu', 'triton'] as const;

/** The first release that reads both TRITON_INTEL_DEVICE_ARCH and TRITON_INTEL_DEVICE_EXTENSIONS. */
export const MIN_TRITON = '3.5.0';

/**
 * The SYCL architectures Triton 3.4's arch_parser.c names (arl_h, arl_s = mtl_u, bmg_g21, dg2_g10 = acm_g10, lnl_m,
 * mtl_h, pvc); for any other answer it returns "" and its compiler then skips TRITON_INTEL_DEVICE_EXTENSIONS.
 */
const TRITON_34_PARSED = ['arl_h', 'mtl_u', 'bmg_g21', 'acm_g10', 'lnl_m', 'mtl_h', 'pvc'].map((a) => `intel_gpu_${a}`);

export interface TritonReads {
  /** The installed Triton's version, as its distribution names it. */
  version: string;
  arch: boolean;
  extensions: boolean;
  /** One sentence: what this Triton does with the variables on this device. */
  note: string;
}

/** Major and minor of a PEP 440 version ("3.4.0+git1234" -> [3, 4]); undefined when it does not start with them. */
export function majorMinor(version: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(version);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/**
 * What a Triton of `version` reads on a device SYCL (so torch's `architecture`) names `sycl` (e.g. intel_gpu_bmg_g21,
 * or unknown). 3.3 and older read neither variable (its compiler asks ocloc); 3.4 reads the extensions only in its
 * compiler and only when arch_parser names torch's architecture, and has no TRITON_INTEL_DEVICE_ARCH; 3.5 on read both.
 */
export function tritonReads(version: string, sycl: string): TritonReads {
  const mm = majorMinor(version);
  const before = (maj: number, min: number) => !!mm && (mm[0] < maj || (mm[0] === maj && mm[1] < min));
  if (!mm) return { version, arch: false, extensions: false, note: `Triton ${version}: not a version this tool knows the rules of` };
  if (before(3, 4)) {
    return { version, arch: false, extensions: false, note: `Triton ${version} reads neither variable (they arrived in 3.4 and 3.5); it asks PyTorch and ocloc` };
  }
  if (before(3, 5)) {
    const parsed = TRITON_34_PARSED.includes(sycl);
    return {
      version, arch: false, extensions: parsed,
      note: parsed
        ? `Triton ${version} has no TRITON_INTEL_DEVICE_ARCH (it names the device from torch's architecture) and reads TRITON_INTEL_DEVICE_EXTENSIONS`
        : `Triton ${version} reads neither variable here: it has no TRITON_INTEL_DEVICE_ARCH, and its arch_parser does not name torch's architecture (${sycl}), so it skips TRITON_INTEL_DEVICE_EXTENSIONS`,
    };
  }
  return { version, arch: true, extensions: true, note: `Triton ${version} reads both variables` };
}

export interface InstalledTriton {
  /** The distribution that carries it (pytorch-triton-xpu, triton-xpu or triton). */
  dist: string;
  version: string;
  /** The interpreter it is installed for. */
  python: string;
}

/** The Triton the active Python would import, by its distribution's version; `tried` lists the interpreters asked. */
export async function installedTriton(deps: Deps, python?: string): Promise<Finding<InstalledTriton | undefined>> {
  const r = await readPythonDistributions(deps, [...TRITON_DISTS], python);
  const versions = r.found?.versions ?? {};
  const dist = TRITON_DISTS.find((n) => versions[n]);
  return { found: dist && r.found ? { dist, version: versions[dist]!, python: r.found.python } : undefined, tried: r.tried };
}
