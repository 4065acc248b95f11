// Says plainly, on stderr, when the Level Zero device about to be used is the CPU reference driver.
import { isRefDriverList } from '../../build/refdriver.js';
import type { CommandContext } from '../command.js';

export function sayActiveDriver(ctx: CommandContext): void {
  const alt = ctx.deps.env.ZE_ENABLE_ALT_DRIVERS;
  if (isRefDriverList(alt)) {
    ctx.out.line(`active Level Zero driver: the xpu-setup CPU reference driver (${alt}), not an Intel GPU`);
  }
}
