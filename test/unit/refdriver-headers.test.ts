// Which Level Zero headers the reference driver is built against: the copy shipped beside its sources, unless the
// prefix holds newer ones.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headersApiVersion, refDriverIncludeDir, refDriverSpec } from '../../src/build/refdriver.js';
import { nativeDir } from '../../src/package-dir.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-refdriver-headers-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A prefix whose include/level_zero/ze_api.h declares API 1.`minor` in the headers' own words. */
function prefixWith(name: string, minor?: number): string {
  const prefix = path.join(dir, name);
  fs.mkdirSync(path.join(prefix, 'include', 'level_zero'), { recursive: true });
  if (minor !== undefined) {
    fs.writeFileSync(
      path.join(prefix, 'include', 'level_zero', 'ze_api.h'),
      `typedef enum _ze_api_version_t\n{\n    ZE_API_VERSION_1_0 = ZE_MAKE_VERSION( 1, 0 ),   ///< version 1.0\n    ZE_API_VERSION_CURRENT = ZE_MAKE_VERSION( 1, ${minor} ),   ///< latest known version\n} ze_api_version_t;\n`,
    );
  }
  return prefix;
}

const own = path.join(nativeDir(), 'refdriver', 'include');

describe('the reference driver\'s Level Zero headers', () => {
  it('ships headers of API 1.17 (loader 1.32) beside its sources', async () => {
    expect(await headersApiVersion(own)).toEqual([1, 17]);
  });

  it('builds against its own copy when the prefix holds older headers (Debian 12\'s 1.8.12 declare 1.4) or none', async () => {
    expect(await refDriverIncludeDir(prefixWith('bookworm', 4))).toBe(own);
    expect(await refDriverIncludeDir(prefixWith('empty'))).toBe(own);
    expect((await refDriverSpec(prefixWith('spec', 4))).includeDirs).toEqual([own]);
  });

  it('builds against the prefix\'s headers when they declare a newer API than its copy', async () => {
    const prefix = prefixWith('future', 99);
    expect(await refDriverIncludeDir(prefix)).toBe(path.join(prefix, 'include'));
  });
});
