// How the plan reads as text: `plan` and --dry-run give each archive's URL and whole sha256; setup's heading is one line each.
import { describe, expect, it } from 'vitest';
import { renderPlan, renderPlanLine } from '../../src/cli/render-plan.js';
import type { InstallPlan } from '../../src/records/plan.js';

const sha = (c: string) => c.repeat(64);
const archive = (pkg: string, version: string, c: string, requiredBy?: string[]) => ({
  package: pkg,
  version,
  filename: `${pkg}-${version}-py2.py3-none-manylinux_2_28_x86_64.whl`,
  url: `https://files.example/${pkg}-${version}.whl`,
  sha256: sha(c),
  size: 4096,
  ...(requiredBy ? { requiredBy } : {}),
});
// Only what renderPlan reads: a component and its closure of two wheels.
const plan = {
  platform: 'linux-x64',
  prefix: '/opt/xpu',
  host: { native: true },
  components: [
    {
      name: 'unified-runtime',
      version: '2025.3.1',
      status: 'planned',
      source: 'pypi',
      origin: 'https://pypi.example/simple',
      archives: [archive('intel-cmplr-lib-ur', '2025.3.1', 'a'), archive('umf', '1.0.2', 'b', ['intel-cmplr-lib-ur 2025.3.1: umf ==1.0.*'])],
      attempts: [],
      notes: [],
    },
  ],
} as unknown as InstallPlan;

describe('renderPlan', () => {
  it('full: each archive is followed by its URL and whole sha256, the dependency indented with it', () => {
    expect(renderPlan(plan, { full: true }).split('\n').slice(1)).toEqual([
      '  unified-runtime 2025.3.1 from pypi https://pypi.example/simple',
      '    intel-cmplr-lib-ur-2025.3.1-py2.py3-none-manylinux_2_28_x86_64.whl  4 KiB',
      '        url    https://files.example/intel-cmplr-lib-ur-2025.3.1.whl',
      `        sha256 ${sha('a')}`,
      '    └ umf 1.0.2: umf-1.0.2-py2.py3-none-manylinux_2_28_x86_64.whl  4 KiB  (required by intel-cmplr-lib-ur 2025.3.1: umf ==1.0.*)',
      '        url    https://files.example/umf-1.0.2.whl',
      `        sha256 ${sha('b')}`,
    ]);
  });

  it('compact (setup without --verbose): one line per archive, the sha256 cut to 16 hex digits, no URL', () => {
    const text = renderPlan(plan);
    expect(text).toContain(`intel-cmplr-lib-ur-2025.3.1-py2.py3-none-manylinux_2_28_x86_64.whl  4 KiB  sha256 ${'a'.repeat(16)}…`);
    expect(text).not.toContain('https://files.example');
  });

  it('a size the index does not list (PEP 503) says so, not `? B`', () => {
    const c = plan.components[0]!;
    const unsized = { ...plan, components: [{ ...c, archives: c.archives.map((a) => ({ ...a, size: undefined })) }] } as unknown as InstallPlan;
    const text = renderPlan(unsized);
    expect(text).toContain('manylinux_2_28_x86_64.whl  size not listed by the index  sha256');
    expect(text).not.toContain('? B');
    // The one-line plan leaves a total it does not know out.
    expect(renderPlanLine(unsized)).toBe('plan: unified-runtime 2025.3.1 from pypi (2 archives)');
  });

  it('one line on a terminal: each component, its source and weight, or why it is not there', () => {
    const skipped = {
      name: 'level-zero',
      status: 'unavailable',
      attempts: [{ source: 'conda', outcome: 'unreachable', reason: 'conda https://conda.example: cannot reach https://conda.example/linux-64/repodata.json (ENOTFOUND)' }],
      notes: [],
    };
    const two = { ...plan, components: [...plan.components, skipped] } as unknown as InstallPlan;
    expect(renderPlanLine(two)).toBe('plan: unified-runtime 2025.3.1 from pypi (2 archives, 8 KiB); level-zero not available (no source reached)');
    expect(renderPlanLine({ ...plan, from: { kind: 'receipt', path: '/opt/xpu/xpu-setup.receipt.json' } } as unknown as InstallPlan)).toMatch(/; the plan recorded in the prefix, no index asked$/);
  });
});
