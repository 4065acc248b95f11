// Reading the `probe --json` / `smoke --json` answers of the CLI child process the doctor runs.
import { describe, expect, it } from 'vitest';
import { ChildCommandError, parseProbeOutput, parseSmokeOutput } from '../../src/doctor/services.js';

describe('probe and smoke child output', () => {
  it('summarises a successful probe report', () => {
    const doc = { ok: true, schema: 'xpu-setup.probe/1', loader: { path: '/p/lib/libze_loader.so.1' }, zeInit: 0, devices: [{ name: 'Intel(R) Arc(TM) A770 Graphics', type: 'gpu', vendorId: '0x8086', deviceId: '0x56a0' }], notes: [] };
    expect(parseProbeOutput(JSON.stringify(doc), 0, '')).toEqual({
      loaderPath: '/p/lib/libze_loader.so.1',
      init: 'ZE_RESULT_SUCCESS (0x0)',
      devices: [{ name: 'Intel(R) Arc(TM) A770 Graphics', type: 'gpu', vendorId: 0x8086, deviceId: 0x56a0 }],
      notes: [],
    });
  });

  it('keeps the report inside a "no device" error, so the check can name zeInit\'s result', () => {
    const doc = { ok: false, error: { code: 'NO_DEVICE', message: 'no Level Zero driver', hints: [], details: { report: { loader: { path: '/l' }, zeInit: 0x78000001, devices: [] } } } };
    const s = parseProbeOutput(JSON.stringify(doc), 1, '');
    expect(s).toMatchObject({ loaderPath: '/l', init: 'ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)', devices: [] });
  });

  it('turns other errors into an error carrying the CLI hints', () => {
    const doc = { ok: false, error: { code: 'NOT_FOUND', message: 'no Level Zero loader in the prefix', hints: ['run `xpu-setup`'] } };
    expect(() => parseProbeOutput(JSON.stringify(doc), 1, '')).toThrow(ChildCommandError);
    try {
      parseProbeOutput(JSON.stringify(doc), 1, '');
    } catch (e) {
      expect((e as ChildCommandError).hints).toEqual(['run `xpu-setup`']);
    }
    expect(() => parseProbeOutput('', 134, 'Aborted')).toThrow(/exited 134 without a JSON answer: Aborted/);
  });

  it('reads smoke results and failures', () => {
    expect(parseSmokeOutput(JSON.stringify({ ok: true, kernel: 'vector_add', device: 'dev', deviceType: 'cpu', checked: 1024 }), 0, '')).toMatchObject({ ok: true, message: 'vector_add on dev (cpu): 1024 values correct' });
    expect(parseSmokeOutput(JSON.stringify({ ok: false, error: { code: 'SMOKE', message: 'c[3] = 0, expected 6' } }), 1, '')).toEqual({ ok: false, message: 'c[3] = 0, expected 6', details: { code: 'SMOKE', hints: undefined } });
  });
});
