// Test helpers: a temp prefix made of symlinks to the system's real Level Zero headers and loader (Debian libze-dev 1.8.12).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const SYSTEM_LOADER_DIR = '/usr/lib/x86_64-linux-gnu';

export function systemPrefix(): string {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-probe-'));
  fs.mkdirSync(path.join(prefix, 'include'), { recursive: true });
  fs.mkdirSync(path.join(prefix, 'lib'), { recursive: true });
  fs.symlinkSync('/usr/include/level_zero', path.join(prefix, 'include', 'level_zero'));
  for (const f of fs.readdirSync(SYSTEM_LOADER_DIR).filter((n) => n.startsWith('libze_loader.so'))) {
    fs.symlinkSync(path.join(SYSTEM_LOADER_DIR, f), path.join(prefix, 'lib', f));
  }
  return prefix;
}
