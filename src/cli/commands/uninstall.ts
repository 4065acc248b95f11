// `xpu-setup uninstall [--prefix DIR]`: remove a prefix xpu-setup made, and name the start-up lines that still load it.
import * as path from 'node:path';
import { XpuError } from '../../base/errors.js';
import { defaultCacheDir, defaultPrefix, homeOf } from '../../platform/index.js';
import { startupLinesFor, uninstallPrefix, type StartupLine } from '../../prefix/uninstall.js';
import { str, type Command } from '../command.js';
import { bytesText } from './cache.js';

const startupText = (lines: StartupLine[]) => lines.map((l) => `  ${l.file}:${l.line}: ${l.text}`);

export const uninstallCommand: Command = {
  name: 'uninstall',
  async run({ deps, values, out }) {
    const prefix = path.resolve(str(values, 'prefix') ?? defaultPrefix(deps));
    const home = homeOf(deps);
    const isDefault = prefix === path.resolve(defaultPrefix(deps));
    const startup = await startupLinesFor(prefix, home, isDefault, deps.env.XDG_CONFIG_HOME || undefined);
    const remove = 'remove these lines from your shell start-up files, or new shells will look for it:';
    let done;
    try {
      done = await uninstallPrefix(prefix, { onWait: (pid) => out.line(`waiting for another xpu-setup (pid ${pid}) to finish with ${prefix}`) });
    } catch (e) {
      if (e instanceof XpuError && e.code === 'NOT_FOUND' && startup.length) e.hints.push(`${remove}\n${startupText(startup).join('\n')}`);
      throw e;
    }
    const cacheDir = path.resolve(defaultCacheDir(deps));
    if (out.opts.json) {
      out.json({ schema: 1, kind: 'xpu-setup.uninstall', ok: true, prefix, removed: { files: done.files, bytes: done.bytes }, startup });
      return 0;
    }
    out.result(`removed ${prefix} (${done.files} files, ${bytesText(done.bytes)})`);
    if (startup.length) out.line([remove, ...startupText(startup)].join('\n'));
    out.line(`the download cache ${cacheDir} is kept: \`xpu-setup cache clean\` empties it`);
    return 0;
  },
};

export const run = uninstallCommand.run;
