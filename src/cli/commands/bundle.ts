// `xpu-setup bundle`: a directory any static server can host: conda channel + PEP 503 index + lockfile; `--from` installs it.
import { writeBundle } from '../../bundle/bundle.js';
import { XpuError } from '../../base/errors.js';
import { parseTargetPlatform } from '../../platform/index.js';
import { lockSetup, planSetup } from '../../pipeline/plan.js';
import { openRunIndex } from '../../pipeline/run-index.js';
import { list, str, type Command } from '../command.js';
import { requestLine } from '../render-plan.js';
import { parsePlanOptions } from '../setup-options.js';

export const bundleCommand: Command = {
  name: 'bundle',
  async run({ deps, out, values }) {
    const dir = str(values, 'out');
    if (!dir) throw new XpuError('USAGE', 'bundle needs --out DIR', { hints: ['example: xpu-setup bundle --platform linux-x64 --out ./xpu-bundle'] });
    const platforms = [...new Set(list(values, 'platform').map(parseTargetPlatform))];
    if (!platforms.length) throw new XpuError('USAGE', 'bundle needs --platform', { hints: ['--platform linux-x64, --platform win-x64, or both: --platform linux-x64,win-x64'] });
    const opts = parsePlanOptions({ ...values, platform: undefined }, deps);
    const extend = str(values, 'prefix') !== undefined;
    const index = openRunIndex(opts, deps, out);
    const plans = opts.locked
      ? await Promise.all(platforms.map((platform) => planSetup({ ...opts, flags: {}, platform, standalone: true }, deps, out, { index })))
      : (await lockSetup({ ...opts, refdriver: false, extend }, platforms, deps, out, index)).plans;
    if (!opts.locked) out.line(requestLine(opts.plan.prefix, extend, plans));
    const r = await writeBundle(plans, dir, deps, out, await index.gateway());
    if (out.opts.json) out.json({ ok: true, ...r });
    else out.result(`wrote ${r.out} (${r.platforms.join(', ')}); install it with: xpu-setup --from ${r.out}   (or serve the directory and pass its URL)`);
    return 0;
  },
};

export const run = bundleCommand.run;
