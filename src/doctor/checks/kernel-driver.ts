// Check: the kernel driver (i915 or xe) is bound to each Intel GPU and loaded; on Windows, the display driver works.
import { loadedGpuModules } from '../../machine/pci.js';
import type { IntelGpu } from '../../machine/gpu.js';
import { describeCmProblem } from '../../machine/windows.js';
import type { Check, CheckOutcome, DoctorContext } from '../types.js';
import { onDisplayDriver, onIntelGpus } from './shared.js';

/** Kernels that first bind these families by default (older ones need force_probe or do not know them). */
const MIN_KERNEL: Record<string, string> = { dg2: '6.2', bmg: '6.12' };

const WINDOWS_DRIVER_URL = 'https://www.intel.com/content/www/us/en/download/785597/intel-arc-iris-xe-graphics-windows.html';

function windowsOutcome(gpus: IntelGpu[]): CheckOutcome {
  const problems: string[] = [];
  const good: string[] = [];
  for (const g of gpus) {
    const w = g.windows;
    if (!w || /basic display/i.test(w.adapterName) || !w.driverStoreDir) {
      problems.push(`${g.name}: no Intel driver installed (${w?.adapterName ?? 'no adapter entry'})`);
    } else if (w.problem !== undefined && w.problem !== 0) {
      problems.push(`${g.name}: ${describeCmProblem(w.problem)}`);
    } else {
      good.push(`${g.name}: driver ${w.driverVersion ?? '(version unknown)'}`);
    }
  }
  if (problems.length) {
    return {
      status: 'fail',
      message: [...problems, ...good].join('; '),
      fix: `install or reinstall the Intel graphics driver (${WINDOWS_DRIVER_URL}), then reboot`,
    };
  }
  return { status: 'ok', message: good.join('; ') };
}

async function linuxOutcome(ctx: DoctorContext, gpus: IntelGpu[]): Promise<CheckOutcome> {
  const modules = await loadedGpuModules(ctx.deps, { root: ctx.root });
  const problems: string[] = [];
  const fixes: string[] = [];
  const good: string[] = [];
  for (const g of gpus) {
    const where = `${g.address ?? g.pciId}`;
    if (g.driver === 'i915' || g.driver === 'xe') {
      good.push(`${where} bound to ${g.driver}${modules.includes(g.driver) ? '' : ' (built in)'}`);
      continue;
    }
    if (g.driver) {
      problems.push(`${where} is bound to ${g.driver}, not to i915 or xe`);
      fixes.push(g.driver.startsWith('vfio') ? 'the GPU is reserved for a VM (vfio); unbind it from vfio-pci to use it on this host' : `unbind ${g.driver} and load i915 or xe`);
      continue;
    }
    const expected = g.expectedDriver;
    if (expected === 'unknown' || expected === undefined) {
      problems.push(`${where} has no kernel driver bound; no in-tree driver binds ${g.pciId} by default`);
      fixes.push(forceProbeAdvice(g));
      continue;
    }
    const min = g.family ? MIN_KERNEL[g.family] : undefined;
    if (!modules.includes(expected)) {
      problems.push(`${where} has no kernel driver bound and the ${expected} module is not loaded`);
      fixes.push(`sudo modprobe ${expected}; if that fails, install a kernel with ${expected}${min ? ` (Linux ${min} or newer for ${g.family})` : ''}`);
    } else {
      problems.push(`${where} has no kernel driver bound although ${expected} is loaded`);
      fixes.push(`see why with: sudo dmesg | grep -iE '${expected}|firmware' (missing GPU firmware, or a kernel too old${min ? `; ${g.family} needs Linux ${min}+` : ''})`);
    }
  }
  const details = { modulesLoaded: modules, gpus: gpus.map((g) => ({ address: g.address, pciId: g.pciId, driver: g.driver ?? null, expected: g.expectedDriver })) };
  if (problems.length) return { status: 'fail', message: [...problems, ...good].join('; '), fix: fixes.join('; '), details };
  return { status: 'ok', message: good.join('; '), details };
}

/** Data-center parts whose in-tree support stops at force_probe; Intel's own driver packages are what binds them. */
const DATA_CENTER = new Set(['pvc', 'ats_m']);

/** Pure: what binds a GPU that no in-tree driver binds by default. */
export function forceProbeAdvice(g: Pick<IntelGpu, 'pciId' | 'family' | 'name'>): string {
  const id = g.pciId.slice(5);
  const cmdline = (param: string) => `add ${param} to the kernel command line (Debian/Ubuntu: GRUB_CMDLINE_LINUX in /etc/default/grub, then \`sudo update-grub\` and reboot)`;
  if (g.family && DATA_CENTER.has(g.family)) {
    return `${g.name} is not in xe's device table, and upstream i915 binds it only when forced: install Intel's data-center GPU driver (its i915 backport, intel-i915-dkms), or ${cmdline(`i915.force_probe=${id}`)} on a kernel whose i915 knows it`;
  }
  return `no kernel driver binds ${g.family ?? 'this GPU'} ${id} by default: if this kernel's xe lists it, ${cmdline(`xe.force_probe=${id}`)}; otherwise install a kernel whose xe or i915 lists ${id}`;
}

export const kernelDriverCheck: Check = {
  id: 'kernel-driver',
  title: 'Kernel driver',
  group: 'system',
  run: onIntelGpus(async (ctx, intel) => (onDisplayDriver(ctx) ? windowsOutcome(intel) : linuxOutcome(ctx, intel))),
};
