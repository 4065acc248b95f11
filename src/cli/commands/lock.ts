// `xpu-setup lock`: resolve once, write xpu-setup.lock.json (per platform: every archive's URL, size, sha256, map).
import * as path from 'node:path';
import { parseTargetPlatform, runningPlatform } from '../../platform/index.js';
import type { TargetPlatform } from '../../platform/types.js';
import { LOCKFILE_NAME, writeLockfile } from '../../plan/lockfile.js';
import { lockSetup } from '../../pipeline/plan.js';
import { openRunIndex } from '../../pipeline/run-index.js';
import { list, str, type Command } from '../command.js';
import { renderPlan, requestLine } from '../render-plan.js';
import { parsePlanOptions } from '../setup-options.js';

export const lockCommand: Command = {
  name: 'lock',
  async run({ deps, out, values }) {
    const platforms: TargetPlatform[] = list(values, 'platform').map(parseTargetPlatform);
    if (!platforms.length) {
      const here = runningPlatform(deps);
      if (here) platforms.push(here);
      else platforms.push(parseTargetPlatform('linux-x64'));
    }
    const opts = parsePlanOptions({ ...values, platform: undefined, locked: false, lockfile: undefined }, deps);
    const file = path.resolve(str(values, 'lockfile') ?? LOCKFILE_NAME);
    const extend = str(values, 'prefix') !== undefined;
    const index = openRunIndex(opts, deps, out);
    const { lock, plans } = await out.during('lock: reading the package indexes', () => lockSetup({ ...opts, refdriver: !!values.refdriver, extend }, [...new Set(platforms)], deps, out, index));
    await writeLockfile(file, lock);
    if (out.opts.json) out.json({ ok: true, lockfile: file, extends: plans.find((p) => p.extends)?.extends ?? null, ...lock });
    else {
      out.line(requestLine(opts.plan.prefix, extend, plans));
      for (const p of plans) out.line(renderPlan(p, { standalone: !extend, full: out.opts.verbose }));
      out.result(`wrote ${file} (${Object.keys(lock.platforms).join(', ')})`);
    }
    return 0;
  },
};

export const run = lockCommand.run;
