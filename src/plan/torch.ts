// Matching the user's PyTorch: the UR, UMF and TCM versions a Python environment's torch runs with, as exact pins.
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { readPythonDistributions, type EnvDists, type PythonDists } from '../machine/python-dists.js';
import type { InstallPlan, TorchMatch, TorchPin } from '../records/plan.js';
import type { Requirement } from '../versions/resolve.js';

/** The packages torch XPU wheels pin exactly, which a prefix's copies on the library path would shadow. */
export const TORCH_RUNTIME_PACKAGES = ['intel-cmplr-lib-ur', 'intel-sycl-rt', 'umf', 'tcmlib'] as const;

/**
 * What each torch XPU release pins (pytorch's CI files and pip freezes of its wheels). Nightlies newer than the last
 * row pin what the last row pins.
 */
const TORCH_PINS: { torch: string; pins: Record<string, string> }[] = [
  { torch: '2.7', pins: { 'intel-cmplr-lib-ur': '2025.0.4', 'intel-sycl-rt': '2025.0.4', umf: '0.9.1', tcmlib: '1.2.0' } },
  { torch: '2.8', pins: { 'intel-cmplr-lib-ur': '2025.1.1', 'intel-sycl-rt': '2025.1.1', umf: '0.10.0', tcmlib: '1.3.0' } },
  { torch: '2.9', pins: { 'intel-cmplr-lib-ur': '2025.2.1', 'intel-sycl-rt': '2025.2.1', umf: '0.11.0', tcmlib: '1.4.0' } },
  { torch: '2.10', pins: { 'intel-cmplr-lib-ur': '2025.3.1', 'intel-sycl-rt': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' } },
  { torch: '2.11', pins: { 'intel-cmplr-lib-ur': '2025.3.2', 'intel-sycl-rt': '2025.3.2', umf: '1.0.3', tcmlib: '1.4.1' } },
  { torch: '2.12', pins: { 'intel-cmplr-lib-ur': '2025.3.2', 'intel-sycl-rt': '2025.3.2', umf: '1.0.3', tcmlib: '1.4.1' } },
];

/** `2.10.0+xpu` -> its row of TORCH_PINS; a nightly past the table -> the last row; an older torch -> none. */
export function torchTableRow(torch: string): { torch: string; pins: Record<string, string> } | undefined {
  const m = /^(\d+)\.(\d+)/.exec(torch);
  if (!m) return undefined;
  const key = (v: string): number => {
    const [a, b] = v.split('.').map(Number);
    return a! * 1000 + b!;
  };
  const want = key(`${m[1]}.${m[2]}`);
  const exact = TORCH_PINS.find((r) => key(r.torch) === want);
  if (exact) return exact;
  const last = TORCH_PINS.at(-1)!;
  return want > key(last.torch) ? last : undefined;
}

/**
 * The one rule of what a Python environment's torch runs with: the runtime packages installed beside it, else what
 * its torch release's wheels pin. `row` names the release used; undefined when there is nothing to go by.
 */
export function pinsFor(versions: Record<string, string>): { pins: TorchPin[]; row?: string } | undefined {
  const installed = TORCH_RUNTIME_PACKAGES.filter((n) => versions[n]);
  if (installed.length) return { pins: installed.map((name) => ({ name, version: versions[name]!, from: 'installed' })) };
  const row = versions.torch ? torchTableRow(versions.torch) : undefined;
  if (!row) return undefined;
  return { pins: Object.entries(row.pins).map(([name, version]) => ({ name, version, from: 'torch table' })), row: row.torch };
}

const listed = (pins: TorchPin[]): string => pins.map((p) => `${p.name} ${p.version}`).join(', ');

/** Pure: the pins for what an interpreter reported; throws when there is nothing to match. */
export function torchMatchOf(found: PythonDists, tried: string[]): TorchMatch {
  const torch = found.versions.torch;
  const where = `${found.python} (Python ${found.pythonVersion})`;
  const got = pinsFor(found.versions);
  if (!got && torch) {
    throw new XpuError('MATCH_TORCH', `--match-torch: torch ${torch} in ${where} is older than any release xpu-setup knows the runtime pins of (2.7 and newer)`, {
      details: { python: found.python, torch },
      hints: ["pin the versions yourself with --require 'unified-runtime==VERSION'", 'or drop the match: --no-match-torch'],
    });
  }
  if (!got) {
    throw new XpuError('MATCH_TORCH', `--match-torch: ${where} has neither torch nor any of ${TORCH_RUNTIME_PACKAGES.join(', ')} installed`, {
      details: { python: found.python, tried },
      hints: [...tried.map((t) => `tried ${t}`), 'activate the environment that has torch, or name its interpreter: --match-torch=/path/to/venv/bin/python', 'or drop the match: --no-match-torch'],
    });
  }
  const installed = Object.fromEntries(got.pins.filter((p) => p.from === 'installed').map((p) => [p.name, p.version]));
  const note = got.row
    ? `torch ${torch} in ${where}, but none of ${TORCH_RUNTIME_PACKAGES.join(', ')} installed there (a torch built against a system oneAPI?): using what torch ${got.row} wheels pin: ${listed(got.pins)}`
    : `${torch ? `torch ${torch}` : 'no torch'} in ${where}, with ${listed(got.pins)}: the prefix gets exactly these`;
  return { python: found.python, pythonVersion: found.pythonVersion, ...(torch ? { torch } : {}), installed, pins: got.pins, notes: [note] };
}

/**
 * Without `--match-torch`: when the active environment has torch and the plan picks other versions of the packages
 * torch runs with, the sentence that says so and how to match; undefined when they agree or there is no torch.
 */
export function torchMismatch(env: EnvDists, plan: Pick<InstallPlan, 'components'>): string | undefined {
  const torch = env.versions.torch;
  const got = torch ? pinsFor(env.versions) : undefined;
  if (!got) return undefined;
  const archives = plan.components.filter((c) => c.status === 'planned').flatMap((c) => c.archives);
  const differ = got.pins.flatMap((p) => {
    const a = archives.find((x) => x.package === p.name);
    return a && a.version !== p.version ? [{ pin: p, planned: a.version }] : [];
  });
  if (!differ.length) return undefined;
  const runs = got.row ? `which its release's wheels pin to` : 'installed with';
  return (
    `${env.root} (${env.from}) has torch ${torch}, ${runs} ${listed(differ.map((d) => d.pin))}; this plan picks ${differ.map((d) => `${d.pin.name} ${d.planned}`).join(', ')}, ` +
    `and with the prefix on the library path torch may load those instead of its own (LIBUR_LOADER_0.x not found, crashes): to match it, add --match-torch`
  );
}

/** Runs the interpreter (`python`, else the active environment's, else PATH's) and returns what to pin. */
export async function readTorchMatch(deps: Deps, python?: string): Promise<TorchMatch> {
  const r = await readPythonDistributions(deps, ['torch', ...TORCH_RUNTIME_PACKAGES], python);
  if (!r.found) {
    throw new XpuError('MATCH_TORCH', `--match-torch: no Python interpreter answered${python ? ` (${python})` : ''}`, {
      details: { tried: r.tried },
      hints: [...r.tried.map((t) => `tried ${t}`), 'name the interpreter of the environment that has torch: --match-torch=/path/to/venv/bin/python'],
    });
  }
  return torchMatchOf(r.found, r.tried);
}

/** Who asks for a pin, as the resolver's conflicts name it. */
export const pinAsker = (m: Pick<TorchMatch, 'python' | 'torch'>): string => `--match-torch (${m.torch ? `torch ${m.torch} in ` : ''}${m.python})`;

/** The pins as requirements that bind a package only where the closure has it (`umf ==1.0.2`). */
export function pinRequirements(m: TorchMatch): Requirement[] {
  return m.pins.map((p) => ({ name: p.name, spec: `==${p.version}`, by: pinAsker(m) }));
}
