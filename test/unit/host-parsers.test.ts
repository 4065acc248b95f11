import { describe, expect, it } from 'vitest';
import { isDebianLike, parseGlibcVersion, parseOsRelease } from '../../src/platform/linux.js';
import { parseAptCachePolicy, parseAptCacheShow } from '../../src/kinds/apt.js';
import { debianUpstream } from '../../src/versions/order.js';

describe('os-release', () => {
  it('parses Debian 12', () => {
    const d = parseOsRelease(`PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
`)!;
    expect(d).toMatchObject({ id: 'debian', versionId: '12', versionCodename: 'bookworm', prettyName: 'Debian GNU/Linux 12 (bookworm)' });
    expect(isDebianLike(d)).toBe(true);
  });

  it('knows Debian derivatives by ID_LIKE', () => {
    expect(isDebianLike(parseOsRelease('ID=linuxmint\nID_LIKE="ubuntu debian"\n'))).toBe(true);
    expect(isDebianLike(parseOsRelease('ID=fedora\nVERSION_ID=41\n'))).toBe(false);
    expect(parseOsRelease('# nothing')).toBeUndefined();
  });
});

describe('glibc version', () => {
  it('reads ldd and getconf output', () => {
    expect(parseGlibcVersion('ldd (Debian GLIBC 2.36-9+deb12u14) 2.36\nCopyright (C) 2022')).toBe('2.36');
    expect(parseGlibcVersion('ldd (Ubuntu GLIBC 2.39-0ubuntu8.4) 2.39\n')).toBe('2.39');
    expect(parseGlibcVersion('glibc 2.28\n')).toBe('2.28');
    expect(parseGlibcVersion('musl libc (x86_64)\nVersion 1.2.4')).toBeUndefined();
  });
});

describe('apt-cache policy', () => {
  it("reads each name's candidate as Debian 12's apt prints it: an installed package with two versions listed, purely virtual ones with none", () => {
    const text = `libc6:
  Installed: 2.36-9+deb12u14
  Candidate: 2.36-9+deb12u14
  Version table:
 *** 2.36-9+deb12u14 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
        100 /var/lib/dpkg/status
     2.36-9+deb12u7 500
        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
libigc1+llvm14:
  Installed: (none)
  Candidate: (none)
  Version table:
intel-opencl-icd:
  Installed: (none)
  Candidate: 22.43.24595.41-1
  Version table:
     22.43.24595.41-1 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
libc6:i386:
  Installed: (none)
  Candidate: 2.36-9+deb12u7
  Version table:
`;
    const policy = parseAptCachePolicy(text);
    expect([...policy].map(([n, p]) => [n, p.candidate])).toEqual([['libc6', '2.36-9+deb12u14'], ['libigc1+llvm14', null], ['intel-opencl-icd', '22.43.24595.41-1']]);
    // Where each version comes from, as apt describes its package indexes; dpkg's status file is no index to fetch from.
    expect([...policy.get('libc6')!.origins]).toEqual([
      ['2.36-9+deb12u14', ['http://deb.debian.org/debian bookworm/main amd64 Packages']],
      ['2.36-9+deb12u7', ['http://deb.debian.org/debian-security bookworm-security/main amd64 Packages']],
    ]);
    expect([...policy.get('intel-opencl-icd')!.origins]).toEqual([['22.43.24595.41-1', ['http://deb.debian.org/debian bookworm/main amd64 Packages']]]);
    expect(policy.get('libigc1+llvm14')!.origins.size).toBe(0);
  });

  it("reads a flat file: repository's index, a pinned priority of 1 and of 1001, and a phased Ubuntu version", () => {
    const text = `libze1:
  Installed: (none)
  Candidate: 1.8.12-1
  Version table:
     1.9.0-1 1
          1 http://archive.example/debian experimental/main amd64 Packages
     1.8.12-1 1001
       1001 file:/srv/repo ./ Packages
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
     1.8.0-1 500 (phased 10%)
        500 http://archive.ubuntu.com/ubuntu noble-updates/universe amd64 Packages
`;
    expect([...parseAptCachePolicy(text).get('libze1')!.origins]).toEqual([
      ['1.9.0-1', ['http://archive.example/debian experimental/main amd64 Packages']],
      ['1.8.12-1', ['file:/srv/repo ./ Packages', 'http://deb.debian.org/debian bookworm/main amd64 Packages']],
      ['1.8.0-1', ['http://archive.ubuntu.com/ubuntu noble-updates/universe amd64 Packages']],
    ]);
  });
});

describe('apt-cache show', () => {
  const text = `Package: libze-dev
Source: level-zero
Version: 1.8.12-1
Installed-Size: 1331
Maintainer: Debian OpenCL team <pkg-opencl-devel@lists.alioth.debian.org>
Architecture: amd64
Depends: libze1 (= 1.8.12-1)
Description: oneAPI Level Zero -- development files
 The objective of the oneAPI Level-Zero API is to provide direct-to-metal
 interfaces to offload accelerator devices.
Filename: pool/main/l/level-zero/libze-dev_1.8.12-1_amd64.deb
Size: 93780
SHA256: 04982092f99d0815fad8352c785ae5e0a91501aab358745b4cd9a7ce78b54606

`;
  it('reads version, file, hash and Depends', () => {
    expect(parseAptCacheShow(text)).toEqual([{
      package: 'libze-dev', version: '1.8.12-1', architecture: 'amd64', depends: ['libze1 (= 1.8.12-1)'],
      filename: 'pool/main/l/level-zero/libze-dev_1.8.12-1_amd64.deb', size: 93780,
      sha256: '04982092f99d0815fad8352c785ae5e0a91501aab358745b4cd9a7ce78b54606',
    }]);
  });

  it('strips epochs and Debian revisions', () => {
    expect(debianUpstream('1.8.12-1')).toBe('1.8.12');
    expect(debianUpstream('1:1.20.6-1+b1')).toBe('1.20.6');
  });
});
