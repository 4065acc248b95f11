import { describe, expect, it } from 'vitest';
import { applyDeviceSelector, parseDeviceSelector, pickDevice } from '../../src/bindings/select.js';
import { isXpuError } from '../../src/base/errors.js';

const devs = [
  { id: '0.0', index: 0, type: 'gpu' },
  { id: '0.1', index: 1, type: 'gpu' },
  { id: '1.0', index: 2, type: 'cpu' },
];
const ids = (xs: { id: string }[]) => xs.map((d) => d.id);

describe('ONEAPI_DEVICE_SELECTOR', () => {
  it('parses terms, negations and device lists', () => {
    expect(parseDeviceSelector('level_zero:0,1;!opencl:*')).toEqual([
      { negative: false, backend: 'level_zero', devices: ['0', '1'] },
      { negative: true, backend: 'opencl', devices: ['*'] },
    ]);
    expect(() => parseDeviceSelector('gpu')).toThrow(/no backend:devices form/);
  });

  it('keeps what positive level_zero or * terms name, by index, type or N.M', () => {
    expect(ids(applyDeviceSelector(devs, 'level_zero:gpu'))).toEqual(['0.0', '0.1']);
    expect(ids(applyDeviceSelector(devs, 'level_zero:2'))).toEqual(['1.0']);
    expect(ids(applyDeviceSelector(devs, '*:1.0'))).toEqual(['0.1']);
    expect(ids(applyDeviceSelector(devs, 'level_zero:0;level_zero:cpu'))).toEqual(['0.0', '1.0']);
  });

  it('keeps no Level Zero device for another backend, and only negations start from all', () => {
    expect(applyDeviceSelector(devs, 'opencl:*')).toEqual([]);
    expect(ids(applyDeviceSelector(devs, '!level_zero:0'))).toEqual(['0.1', '1.0']);
    expect(ids(applyDeviceSelector(devs, 'level_zero:*;!level_zero:gpu'))).toEqual(['1.0']);
    expect(applyDeviceSelector(devs, '')).toBe(devs);
    expect(applyDeviceSelector(devs, undefined)).toBe(devs);
  });
});

describe('--device', () => {
  it('takes a report id or a flat index', () => {
    expect(pickDevice(devs, '0.1').index).toBe(1);
    expect(pickDevice(devs, '2').id).toBe('1.0');
  });

  it('names the devices there are when the wanted one does not exist', () => {
    let err: unknown;
    try {
      pickDevice(devs, '3.0');
    } catch (e) {
      err = e;
    }
    expect(isXpuError(err, 'NO_DEVICE')).toBe(true);
    expect((err as { hints: string[] }).hints[0]).toBe('devices: 0.0 (index 0), 0.1 (index 1), 1.0 (index 2)');
  });
});
