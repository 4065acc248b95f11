// A channel's platform subdir and its noarch are read at once; when both fail (an unreachable channel), the error told
// is the platform subdir's, whichever failure came first, so the message names the same URL every time.
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/base/deps.js';
import type { Host } from '../../src/platform/index.js';
import { silentReporter } from '../../src/base/reporter.js';
import { condaRecords } from '../../src/kinds/conda.js';
import type { Gateway } from '../../src/index/gateway.js';
import type { SourceContext } from '../../src/kinds/kind.js';

/** A test double of the gateway: each subdir fails with its own error, noarch first. */
function failingGateway(): Gateway {
  return {
    condaRecords: async (_ch: string, subdir: string) => {
      if (subdir !== 'noarch') await new Promise((r) => setTimeout(r, 20));
      throw new Error(`cannot reach ${subdir}`);
    },
  } as unknown as Gateway;
}

describe('reading a channel', () => {
  it("tells the platform subdir's failure when noarch's came first", async () => {
    const ctx = { host: { platform: 'linux-x64' } as Host, deps: {} as Deps, reporter: silentReporter, gateway: failingGateway() } as SourceContext;
    await expect(condaRecords(ctx, 'http://127.0.0.1:9/ch', ['level-zero'])).rejects.toThrow('cannot reach linux-64');
  });
});
