import { describe, expect, it } from 'vitest';
import { mapMember } from '../../src/install/map.js';

const conda = [
  { from: 'Library/include/', to: 'include/' },
  { from: 'Library/bin/', to: 'bin/' },
  { from: 'Library/lib/', to: 'lib/' },
];

describe('mapMember', () => {
  it('maps conda Windows layouts into the prefix', () => {
    expect(mapMember(conda, 'Library/include/level_zero/ze_api.h')).toBe('include/level_zero/ze_api.h');
    expect(mapMember(conda, 'Library/bin/ze_loader.dll')).toBe('bin/ze_loader.dll');
    expect(mapMember(conda, 'Library/lib/ze_loader.lib')).toBe('lib/ze_loader.lib');
  });

  it('drops members no rule takes', () => {
    expect(mapMember(conda, 'info/index.json')).toBeUndefined();
    expect(mapMember(conda, 'Library/share/doc/x')).toBeUndefined();
    expect(mapMember(conda, 'Library/includes/x.h')).toBeUndefined();
  });

  it('lets * match one path segment', () => {
    const rules = [{ from: '*/include/', to: 'include/' }];
    expect(mapMember(rules, 'level-zero-win-sdk-1.21.9/include/level_zero/ze_api.h')).toBe('include/level_zero/ze_api.h');
    expect(mapMember(rules, 'include/level_zero/ze_api.h')).toBeUndefined();
  });

  it('maps Debian multiarch lib dirs', () => {
    const rules = [{ from: 'usr/lib/x86_64-linux-gnu/', to: 'lib/' }];
    expect(mapMember(rules, 'usr/lib/x86_64-linux-gnu/libze_loader.so.1')).toBe('lib/libze_loader.so.1');
  });
});
