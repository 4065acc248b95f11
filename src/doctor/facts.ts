// Detection results shared by several checks, each computed once per doctor run.
import type { Deps } from '../base/deps.js';
import { detectGpus, type GpuScan } from '../machine/gpu.js';
import { detectInstalls, type InstallsSummary } from '../machine/installs.js';
import { readLdconfig, type LdconfigEntry } from '../machine/ldconfig.js';
import type { Finding } from '../machine/types.js';
import { detectHost, nodeLayout, type Host } from '../platform/index.js';
import { readPrefixState, type PrefixState } from '../prefix/prefix-state.js';
import type { Receipt } from '../records/receipt.js';

export interface ReceiptRead {
  receipt?: Receipt;
  /** Set when the file exists but cannot be read as a receipt. */
  error?: string;
}

export class Facts {
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: Deps,
    private readonly opts: { root: string; prefix: string; readReceipt?: (prefix: string) => Promise<Receipt | undefined> },
  ) {}

  private once<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let p = this.memo.get(key) as Promise<T> | undefined;
    if (!p) {
      p = fn();
      this.memo.set(key, p);
    }
    return p;
  }

  host(): Promise<Host | undefined> {
    return this.once('host', () => detectHost(this.deps).catch(() => undefined));
  }

  gpus(): Promise<Finding<GpuScan>> {
    return this.once('gpus', () => detectGpus(this.deps, { root: this.opts.root }));
  }

  ldcache(): Promise<Finding<LdconfigEntry[]>> {
    return this.once('ldcache', () =>
      nodeLayout(this.deps.platform).ldconfig ? readLdconfig(this.deps) : Promise.resolve({ found: [], tried: [] }),
    );
  }

  /** The prefix as this doctor run reads it, once (tests hand a receipt reader instead). */
  receipt(): Promise<ReceiptRead> {
    const given = this.opts.readReceipt;
    return this.once('receipt', async () => {
      const state: Pick<PrefixState, 'receipt' | 'unreadable'> = given
        ? await given(this.opts.prefix).then((receipt) => ({ receipt }), (e: Error) => ({ unreadable: e }))
        : await readPrefixState(this.opts.prefix);
      if (state.unreadable) return { error: state.unreadable.message };
      return state.receipt ? { receipt: state.receipt } : {};
    });
  }

  installs(): Promise<InstallsSummary> {
    return this.once('installs', async () => {
      const [ld, r] = await Promise.all([this.ldcache(), this.receipt()]);
      return detectInstalls(this.deps, { prefix: this.opts.prefix, receipt: r.receipt, ldcache: ld.found });
    });
  }
}
