// Check: the GuC (and HuC/GSC) firmware the kernel driver loads for each Intel GPU is under /lib/firmware.
import { firmwareFor, gpuFirmware, presentFirmware } from '../../machine/firmware.js';
import type { Check } from '../types.js';
import { offDisplayDriver, onIntelGpus } from './shared.js';

export const firmwareCheck: Check = {
  id: 'firmware',
  title: 'GPU firmware',
  group: 'system',
  run: offDisplayDriver('the display driver carries its firmware', onIntelGpus(async (ctx, intel) => {
    const problems: string[] = [];
    const notes: string[] = [];
    const good: string[] = [];
    const missingFiles: string[] = [];
    const details: Record<string, unknown>[] = [];
    for (const g of intel) {
      // The driver bound decides the firmware; an unbound GPU is judged for the driver that would bind it.
      const driver = g.driver === 'i915' || g.driver === 'xe' ? g.driver : g.expectedDriver;
      const where = g.address ?? g.pciId;
      if (driver !== 'i915' && driver !== 'xe') {
        notes.push(`${where} (${g.family ?? 'unknown family'}): no in-tree driver to judge its firmware for`);
        continue;
      }
      const rows = firmwareFor(gpuFirmware(), g, driver);
      if (rows.length === 0) {
        notes.push(`${where} (${g.family ?? 'unknown family'} on ${driver}): no firmware listed in this tool's table`);
        continue;
      }
      const present = await presentFirmware(ctx.deps, rows, { root: ctx.root });
      const missing = rows.filter((r) => !present.has(r.file));
      details.push({ address: g.address, family: g.family, driver, present: [...present.values()], missing: missing.map((r) => r.file) });
      const blocking = missing.filter((r) => r.neededForCompute);
      if (blocking.length) {
        problems.push(`${where} (${g.family} on ${driver}) needs ${blocking.map((r) => `${r.kind.toUpperCase()} firmware ${r.file}`).join(', ')}, which is not under /lib/firmware: without it ${driver} runs no compute engine`);
        missingFiles.push(...blocking.map((r) => r.file));
      } else {
        good.push(`${where} (${g.family} on ${driver}): ${rows.filter((r) => present.has(r.file)).map((r) => r.file).join(', ') || 'nothing needed for compute'}`);
      }
      const media = missing.filter((r) => !r.neededForCompute);
      if (media.length) notes.push(`${where}: ${media.map((r) => r.file).join(', ')} missing (media and authentication only, not needed for compute)`);
    }
    const message = [...problems, ...good, ...notes].join('; ');
    if (details.length === 0) return { status: 'skip', message };
    if (problems.length) {
      return {
        status: 'fail',
        message,
        fix: `install the GPU firmware, then reboot: Debian \`sudo apt install firmware-misc-nonfree\` (Debian 12's lacks mtl_guc_70.bin and all of xe/: take it from bookworm-backports), Ubuntu \`sudo apt install linux-firmware\`, Fedora \`sudo dnf install linux-firmware\`; or copy ${missingFiles.join(', ')} from https://git.kernel.org/pub/scm/linux/kernel/git/firmware/linux-firmware.git into /lib/firmware/`,
        details: { gpus: details },
      };
    }
    return { status: 'ok', message, details: { gpus: details } };
  })),
};
