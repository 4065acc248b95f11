// The doctor's runner, exit codes, check selection and human rendering.
import { describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { ALL_CHECKS, renderHuman, runDoctor, selectChecks, shouldColor, type Check, type DoctorReport } from '../../src/doctor/index.js';
import { exitCodeFor, runChecks, summarize } from '../../src/doctor/runner.js';
import { isXpuError } from '../../src/base/errors.js';

const check = (id: string, run: Check['run'], extra: Partial<Check> = {}): Check => ({ id, title: `Check ${id}`, group: 'system', run, ...extra });

async function report(checks: Check[], strict = false): Promise<DoctorReport> {
  return runDoctor(realDeps(), { checks, strict, prefix: '/nonexistent-prefix', timeoutMs: 50 });
}

describe('runner', () => {
  it('runs every check; one that throws becomes "error" and the others still report', async () => {
    const r = await report([
      check('a', async () => ({ status: 'ok', message: 'fine' })),
      check('b', async () => {
        throw new Error('boom');
      }),
      check('c', async () => ({ status: 'warn', message: 'hmm', fix: 'do x' })),
    ]);
    expect(r.checks.map((c) => [c.id, c.status])).toEqual([['a', 'ok'], ['b', 'error'], ['c', 'warn']]);
    expect(r.checks[1]!.message).toBe('the check itself failed: boom');
    expect(r.summary).toMatchObject({ total: 3, ok: 1, warn: 1, error: 1, exit_code: 1 });
    for (const c of r.checks) expect(typeof c.duration_ms).toBe('number');
  });

  it('a check that never finishes becomes "error" when its time limit passes', async () => {
    const r = await report([check('hang', () => new Promise(() => {})), check('fast', async () => ({ status: 'ok', message: 'x' }))]);
    expect(r.checks[0]).toMatchObject({ status: 'error', message: 'the check did not finish within 0.05 s' });
    expect(r.checks[1]!.status).toBe('ok');
  });

  it('runs the checks concurrently, not one after another', async () => {
    let started = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const waiter = async () => {
      started += 1;
      if (started === 2) release();
      await gate;
      return { status: 'ok' as const, message: 'x' };
    };
    const results = await runChecks([check('a', waiter), check('b', waiter)], { deps: realDeps() } as never, 5000);
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it('exit codes: 0 with warnings, 1 with a failure or error, 1 with warnings under --strict; skips never count', () => {
    expect(exitCodeFor([{ status: 'ok' }, { status: 'warn' }, { status: 'skip' }], false)).toBe(0);
    expect(exitCodeFor([{ status: 'ok' }, { status: 'warn' }], true)).toBe(1);
    expect(exitCodeFor([{ status: 'fail' }], false)).toBe(1);
    expect(exitCodeFor([{ status: 'error' }], false)).toBe(1);
    expect(exitCodeFor([{ status: 'skip' }], true)).toBe(0);
    expect(summarize([], false).exit_code).toBe(0);
  });
});

describe('check selection', () => {
  it('leaves the smoke checks out unless --smoke', () => {
    expect(selectChecks([], false).map((c) => c.id)).not.toContain('smoke');
    expect(selectChecks([], true).map((c) => c.id)).toEqual(ALL_CHECKS.map((c) => c.id));
  });

  it('--check picks exactly the named checks (a smoke check included when named)', () => {
    expect(selectChecks(['gpu', 'probe'], false).map((c) => c.id)).toEqual(['gpu', 'probe']);
  });

  it('an unknown id is a usage error that lists the valid ones', () => {
    try {
      selectChecks(['gpu', 'nope'], false);
      expect.unreachable();
    } catch (e) {
      expect(isXpuError(e, 'USAGE')).toBe(true);
      expect((e as Error).message).toBe('unknown check "nope"');
      expect((e as { hints: string[] }).hints[0]).toMatch(/^checks: platform, gpu, /);
    }
  });

  it('every check has a unique id', () => {
    expect(new Set(ALL_CHECKS.map((c) => c.id)).size).toBe(ALL_CHECKS.length);
  });
});

describe('human rendering', () => {
  it('groups checks, marks each, puts the fix under problems, and ends with N/M checks passed', async () => {
    const r = await report([
      check('a', async () => ({ status: 'ok', message: 'fine', fix: 'never shown' })),
      check('b', async () => ({ status: 'fail', message: 'broken', fix: 'sudo usermod -aG render $USER' }), { group: 'driver' }),
      check('c', async () => ({ status: 'warn', message: 'meh', fix: 'later' }), { group: 'driver' }),
      check('d', async () => ({ status: 'skip', message: 'n/a' }), { group: 'toolchain' }),
    ]);
    const text = renderHuman(r, { color: false, verbose: false });
    expect(text).toBe([
      'xpu-setup doctor (linux-x64, prefix /nonexistent-prefix)',
      '',
      'System and GPU',
      '  ✓ Check a: fine',
      '',
      'Drivers, loaders and headers',
      '  ✗ Check b: broken',
      '      fix: sudo usermod -aG render $USER',
      '  ! Check c: meh',
      '      fix: later',
      '',
      'Environment, compiler, prefix and network',
      '  - Check d: n/a',
      '',
      '1/3 checks passed (1 warning, 1 failed, 1 skipped)',
    ].join('\n'));
    expect(text).not.toMatch(/\x1b\[/);
  });

  it('says a fix once: a later check with the same one points to it; a long fix of several ways, one way a line', async () => {
    const long = `run ${'x'.repeat(120)} once the channel is reachable; or name a mirror: ${'y'.repeat(80)}, or install from a bundle`;
    const r = await report([
      check('a', async () => ({ status: 'warn', message: 'old', fix: long }), { group: 'driver' }),
      check('b', async () => ({ status: 'warn', message: 'old too', fix: long }), { group: 'driver' }),
    ]);
    const text = renderHuman(r, { color: false, verbose: false });
    expect(text).toContain(`      fix: run ${'x'.repeat(120)} once the channel is reachable;\n          or name a mirror: ${'y'.repeat(80)},\n          or install from a bundle`);
    expect(text).toContain('  ! Check b: old too\n      fix: as for Check a above');
    expect(text.split(long.slice(0, 40)).length).toBe(2);
    // --verbose says each in full.
    expect(renderHuman(r, { color: false, verbose: true }).split(long).length).toBe(3);
  });

  it('colours only when asked, and verbose adds the details', async () => {
    const r = await report([check('a', async () => ({ status: 'fail', message: 'x', details: { tried: ['/one: no', '/two: no'] } }))]);
    expect(renderHuman(r, { color: true, verbose: false })).toMatch(/\x1b\[31m✗\x1b\[0m/);
    expect(renderHuman(r, { color: false, verbose: true })).toContain('      tried:\n        - /one: no\n        - /two: no');
  });

  it('--verbose prints facts as readable lines, each list item once; never inline JSON', async () => {
    const details = {
      chosen: { path: '/lib/libze_loader.so.1', version: { version: '1.8.12-1', source: 'dpkg libze1' } },
      notes: ['no driver', 'no driver', 'headers lack ip version'],
      headers: [{ header: '/usr/include/level_zero/ze_api.h', api: '1.4' }],
      empty: [],
    };
    const r = await report([check('a', async () => ({ status: 'warn', message: 'x', details }))]);
    const text = renderHuman(r, { color: false, verbose: true });
    expect(text).toContain([
      '      chosen:',
      '        path: /lib/libze_loader.so.1',
      '        version:',
      '          version: 1.8.12-1',
      '          source: dpkg libze1',
      '      notes:',
      '        - no driver',
      '        - headers lack ip version',
      '      headers:',
      '        - header: /usr/include/level_zero/ze_api.h',
      '          api: 1.4',
    ].join('\n'));
    expect(text).not.toMatch(/[{}"]|empty/);
  });

  it('--quiet prints only what fails (with --strict, warnings too) and the summary', async () => {
    const r = await report([
      check('a', async () => ({ status: 'ok', message: 'fine' })),
      check('b', async () => ({ status: 'fail', message: 'broken', fix: 'mend it' }), { group: 'driver' }),
      check('c', async () => ({ status: 'warn', message: 'meh' }), { group: 'toolchain' }),
    ]);
    expect(renderHuman(r, { color: false, verbose: false, quiet: true })).toBe(
      ['Drivers, loaders and headers', '  ✗ Check b: broken', '      fix: mend it', '', '1/3 checks passed (1 warning, 1 failed)'].join('\n'),
    );
    expect(renderHuman(r, { color: false, verbose: false, quiet: true, strict: true })).toMatch(/Check b[\s\S]*Check c: meh/);
  });

  it('decides colour from the TTY, NO_COLOR and TERM=dumb', () => {
    expect(shouldColor(true, {})).toBe(true);
    expect(shouldColor(false, {})).toBe(false);
    expect(shouldColor(true, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor(true, { TERM: 'dumb' })).toBe(false);
  });
});
