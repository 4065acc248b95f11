// The addon and the reference driver built against Level Zero 1.20.6 headers (Debian trixie), run by the 1.8.12
// loader: the probe then asks ze_device_ip_version_ext_t from the headers themselves, and both paths agree.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAddon } from '../../src/build/addon.js';
import { probeStack, requireDevices } from '../../src/probe/probe.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { silentReporter } from '../../src/base/reporter.js';
import { ensureDebs } from '../support/debs.js';
import { SYSTEM_LOADER_DIR } from './probe-helpers.js';

const root = path.join(__dirname, '..', '..');
const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-newhdr-'));
const driver = path.join(prefix, 'lib', 'libze_xpu_setup_refdriver.so');
// The loader reads these at zeInit, which happens in this process (one test file = one process).
process.env.ZE_ENABLE_ALT_DRIVERS = driver;
process.env.XPU_SETUP_REFDRIVER_PROFILE = 'bmg';

beforeAll(async () => {
  const trixie = (await ensureDebs()).trixie;
  fs.mkdirSync(path.join(prefix, 'include'), { recursive: true });
  fs.mkdirSync(path.join(prefix, 'lib'), { recursive: true });
  fs.symlinkSync(path.join(trixie.includeDir, 'level_zero'), path.join(prefix, 'include', 'level_zero'));
  for (const f of fs.readdirSync(SYSTEM_LOADER_DIR).filter((n) => n.startsWith('libze_loader.so'))) {
    fs.symlinkSync(path.join(SYSTEM_LOADER_DIR, f), path.join(prefix, 'lib', f));
  }
  execFileSync('sh', [path.join(root, 'native', 'refdriver', 'build.sh'), path.join(prefix, 'include'), driver], { stdio: 'pipe' });
});

afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));

describe('built against 1.20.6 headers', () => {
  it('the addon compiles, and addon and koffi agree on a BMG through the reference driver', async () => {
    const deps = realDeps();
    expect(fs.readFileSync(path.join(prefix, 'include', 'level_zero', 'ze_api.h'), 'utf8')).toContain('ze_device_ip_version_ext_t');
    const addon = await buildAddon(prefix, { deps, reporter: silentReporter });
    const r = await probeStack(prefix, { deps, addonPath: addon.output });
    requireDevices(r, deps);
    expect(r.devices[0]!.arch).toMatchObject({ name: 'bmg', version: '20.1.4', source: 'l0' });
    expect(r.notes.join('\n')).not.toMatch(/disagree/);
    expect(r.notes.join('\n')).not.toMatch(/headers the addon was built against lack/);
  });
});
