// An installed-distribution test double: `.dist-info` directories shaped like the ones pip writes for torch XPU and
// Intel's runtime wheels, in a real venv (Debian's /usr/bin/python3 -m venv) or a plain PYTHONPATH directory.
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The interpreter CI has (Debian 12's python3, 3.11). */
export const SYSTEM_PYTHON = '/usr/bin/python3';

export interface InstalledDist {
  name: string;
  version: string;
  summary: string;
  requiresDist: string[];
}

/** What torch XPU wheels declare (Requires-Dist as their METADATA has it, with the platform markers). */
export function torchXpuDist(version: string, pins: { ur: string; umf: string; tcmlib: string }): InstalledDist {
  const linux = '; platform_system == "Linux"';
  return {
    name: 'torch',
    version,
    summary: 'Tensors and Dynamic neural networks in Python with strong GPU acceleration (xpu-setup test double: metadata only)',
    requiresDist: [
      'filelock',
      'typing-extensions>=4.10.0',
      'sympy>=1.13.3',
      'networkx>=2.5.1',
      'jinja2',
      'fsspec>=0.8.5',
      `intel-cmplr-lib-rt==${pins.ur}${linux}`,
      `intel-cmplr-lib-ur==${pins.ur}${linux}`,
      `intel-cmplr-lic-rt==${pins.ur}${linux}`,
      `intel-sycl-rt==${pins.ur}${linux}`,
      `tcmlib==${pins.tcmlib}${linux}`,
      `umf==${pins.umf}${linux}`,
    ],
  };
}

/** Intel's runtime wheels as installed beside torch: UR pins UMF by minor, UMF asks for a tcmlib floor. */
export function intelRuntimeDists(pins: { ur: string; umf: string; tcmlib: string }): InstalledDist[] {
  const minor = pins.umf.split('.').slice(0, 2).join('.');
  return [
    { name: 'intel-cmplr-lib-ur', version: pins.ur, summary: 'Intel oneAPI Unified Runtime (xpu-setup test double: metadata only)', requiresDist: [`umf==${minor}.*`] },
    { name: 'intel-sycl-rt', version: pins.ur, summary: 'Intel oneAPI SYCL runtime (xpu-setup test double: metadata only)', requiresDist: [`intel-cmplr-lib-ur==${pins.ur}`, `intel-cmplr-lib-rt==${pins.ur}`] },
    { name: 'umf', version: pins.umf, summary: 'Unified Memory Framework (xpu-setup test double: metadata only)', requiresDist: [`tcmlib>=${pins.tcmlib.split('.').slice(0, 2).join('.')}`] },
    { name: 'tcmlib', version: pins.tcmlib, summary: 'Thread Composability Manager (xpu-setup test double: metadata only)', requiresDist: [] },
  ];
}

const distDir = (d: InstalledDist): string => `${d.name.replace(/[-_.]+/g, '_')}-${d.version}.dist-info`;

/** Writes each distribution's `.dist-info` (METADATA, INSTALLER, RECORD) into `site`, as pip leaves them. */
export async function installDists(site: string, dists: InstalledDist[]): Promise<void> {
  await mkdir(site, { recursive: true });
  for (const d of dists) {
    const dir = join(site, distDir(d));
    await mkdir(dir, { recursive: true });
    const metadata = [
      'Metadata-Version: 2.1',
      `Name: ${d.name}`,
      `Version: ${d.version}`,
      `Summary: ${d.summary}`,
      ...d.requiresDist.map((r) => `Requires-Dist: ${r}`),
      '',
      '',
    ].join('\n');
    const files = { METADATA: metadata, INSTALLER: 'pip\n' };
    const rows = Object.entries(files).map(([f, text]) => {
      const digest = createHash('sha256').update(text).digest('base64url');
      return `${distDir(d)}/${f},sha256=${digest},${Buffer.byteLength(text)}`;
    });
    for (const [f, text] of Object.entries(files)) await writeFile(join(dir, f), text);
    await writeFile(join(dir, 'RECORD'), [...rows, `${distDir(d)}/RECORD,,`, ''].join('\n'));
  }
}

/** A real venv made by `python3 -m venv` (no pip in it), holding `dists`; returns its root and interpreter. */
export async function makeVenv(root: string, dists: InstalledDist[]): Promise<{ root: string; python: string }> {
  await execa(SYSTEM_PYTHON, ['-m', 'venv', '--without-pip', root]);
  const lib = join(root, 'lib');
  const pyDir = (await readdir(lib)).find((e) => /^python3\.\d+$/.test(e))!;
  await installDists(join(lib, pyDir, 'site-packages'), dists);
  return { root, python: join(root, 'bin', 'python3') };
}
