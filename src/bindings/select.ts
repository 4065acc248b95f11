// Which Level Zero devices a run may use: ONEAPI_DEVICE_SELECTOR (as SYCL reads it) and `--device`, as pure functions.
import { XpuError } from '../base/errors.js';

/** What selection needs to know of a device: its report id ("driver.device"), its flat index and its type. */
export interface Selectable {
  id: string;
  /** Position among all Level Zero devices, across drivers: the number SYCL's selector and sycl-ls use. */
  index: number;
  type: string;
}

interface Term {
  negative: boolean;
  backend: string;
  devices: string[];
}

/**
 * Parses ONEAPI_DEVICE_SELECTOR: `;`-separated terms `[!]backend:dev[,dev...]`, where backend is level_zero, opencl,
 * cuda, hip, native_cpu or `*`, and each dev is `*`, a type (gpu, cpu, fpga), a number `N`, `N.M` or `N.*`.
 */
export function parseDeviceSelector(text: string): Term[] {
  const terms: Term[] = [];
  for (const raw of text.split(';').map((t) => t.trim()).filter(Boolean)) {
    const negative = raw.startsWith('!');
    const body = negative ? raw.slice(1) : raw;
    const colon = body.indexOf(':');
    if (colon <= 0) {
      throw new XpuError('USAGE', `ONEAPI_DEVICE_SELECTOR term "${raw}" has no backend:devices form`, {
        hints: ['examples: level_zero:gpu, level_zero:0, *:1.0, !opencl:*'],
      });
    }
    const devices = body.slice(colon + 1).split(',').map((d) => d.trim().toLowerCase()).filter(Boolean);
    terms.push({ negative, backend: body.slice(0, colon).trim().toLowerCase(), devices });
  }
  return terms;
}

function matches(dev: Selectable, spec: string): boolean {
  if (spec === '*' || spec === dev.type) return true;
  // N, N.M or N.*: the root device N (this probe lists root devices; a sub-device spec selects its root).
  const m = /^(\d+)(?:\.(\d+|\*))?$/.exec(spec);
  return m !== null && Number(m[1]) === dev.index;
}

/**
 * The devices the selector keeps. Positive terms for the level_zero (or `*`) backend list what is kept; with only
 * negative terms everything starts kept; a term for another backend keeps no Level Zero device. Empty or unset keeps all.
 */
export function applyDeviceSelector<T extends Selectable>(devices: T[], selector: string | undefined): T[] {
  if (!selector || selector.trim() === '') return devices;
  const terms = parseDeviceSelector(selector);
  const ours = (t: Term) => t.backend === 'level_zero' || t.backend === '*';
  const positive = terms.filter((t) => !t.negative);
  let kept = positive.length === 0 ? devices : devices.filter((d) => positive.some((t) => ours(t) && t.devices.some((s) => matches(d, s))));
  for (const t of terms.filter((x) => x.negative && ours(x))) kept = kept.filter((d) => !t.devices.some((s) => matches(d, s)));
  return kept;
}

/** `--device`: a report id ("0.1" = driver 0, device 1) or a flat index ("1"), as sycl-ls numbers them. */
export function pickDevice<T extends Selectable>(devices: T[], wanted: string): T {
  const byId = devices.find((d) => d.id === wanted);
  const byIndex = /^\d+$/.test(wanted) ? devices.find((d) => d.index === Number(wanted)) : undefined;
  const found = byId ?? byIndex;
  if (!found) {
    throw new XpuError('NO_DEVICE', `no Level Zero device "${wanted}"`, {
      hints: [
        devices.length ? `devices: ${devices.map((d) => `${d.id} (index ${d.index})`).join(', ')}` : 'no devices are visible',
        'ZE_AFFINITY_MASK and ONEAPI_DEVICE_SELECTOR can hide devices',
      ],
    });
  }
  return found;
}
