// People's text at most 200 characters a line outside --verbose; times as people read them; cache clean's own words.
import { describe, expect, it } from 'vitest';
import { wrapText } from '../../src/base/wrap.js';
import { whenSaid } from '../../src/base/when.js';
import { newCauses, XpuError } from '../../src/base/errors.js';
import { rerootPc } from '../../src/roles/pkg-config.js';
import { cleanedWords } from '../../src/cli/commands/cache.js';

describe('wrapText', () => {
  it('breaks a long line at spaces, continuing 4 further in than its own indentation', () => {
    const line = `  fix: ${'word '.repeat(60).trim()}`;
    const out = wrapText(line, 80).split('\n');
    expect(out.every((l) => l.length <= 80)).toBe(true);
    expect(out[0]!.startsWith('  fix: word')).toBe(true);
    expect(out.slice(1).every((l) => l.startsWith('      word'))).toBe(true);
    expect(out.join(' ').replace(/ +/g, ' ')).toBe(line.replace(/ +/g, ' '));
  });

  it('never breaks inside a `command`, which must paste as one line', () => {
    const cmd = '`xpu-setup --prefix /a/b --component gpu-driver --require level-zero>=1.9`';
    const out = wrapText(`run ${cmd} to get it, then load the env file again`, 40).split('\n');
    expect(out).toContain(`    ${cmd}`);
  });

  it('leaves short lines and line breaks as they are', () => {
    expect(wrapText('a\n  b c\n')).toBe('a\n  b c\n');
  });
});

describe('whenSaid', () => {
  it('says an ISO time as a UTC time to the second', () => {
    expect(whenSaid('2026-12-04T20:35:54.651Z')).toBe('2026-12-04 20:35:54 UTC');
    expect(whenSaid('not a time')).toBe('not a time');
  });
});

describe('cache clean', () => {
  it("counts the cache directory's files apart from xpu-setup's V8 code cache, and says where that is and that the installed package shares it", () => {
    const rows = [
      { id: 'downloads' as const, title: 'downloaded archives', path: '/c/sha256', files: 2, bytes: 10 },
      { id: 'code' as const, title: 'code cache', path: '/pkg/dist', files: 1, bytes: 2048 },
    ];
    expect(cleanedWords(rows, '/c', '')).toBe(
      "removed 2 files (10 B) from /c, and 1 file (2.0 KiB) of xpu-setup's V8 code cache in /pkg/dist, which every run of this installed package shares (written again on the next start)",
    );
    expect(cleanedWords([rows[0]!, { ...rows[1]!, files: 0, bytes: 0 }], '/c', ' not used for 30d')).toBe('removed 2 files not used for 30d (10 B) from /c');
  });
});

describe('caused by', () => {
  it('is said only for a cause that adds to the message, and once', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const e = new XpuError('NETWORK', 'cannot reach http://127.0.0.1:9/x: connect ECONNREFUSED 127.0.0.1:9', { cause: new Error('fetch failed', { cause: inner }) });
    expect(newCauses(e)).toEqual(['fetch failed']);
    const again = new XpuError('INSTALL', 'cannot write /p/lib: disk full', { cause: new Error('disk full') });
    expect(newCauses(again)).toEqual([]);
  });
});

describe("the prefix's pkg-config files", () => {
  it("say the component's version, not a shipped file's that lags it (Debian's libze-dev 1.8.12 ships Version: 1.8.0)", () => {
    const debian = 'prefix=/usr\nincludedir=${prefix}/include\nlibdir=${prefix}/lib\n\nName: Level Zero\nVersion: 1.8.0\nRequires: libze_loader\n';
    const pc = rerootPc(debian, '/opt/xpu', '1.8.12');
    expect(pc).toContain('\nVersion: 1.8.12\n');
    expect(pc).toContain('prefix=/opt/xpu\n');
    expect(rerootPc(debian, '/opt/xpu')).toContain('\nVersion: 1.8.0\n');
  });
});
