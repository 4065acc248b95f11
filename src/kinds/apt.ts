// Debian/Ubuntu archives through the machine's own apt: versions and SHA256 from apt-cache (fetch/apt.ts downloads them).
import * as path from 'node:path';
import { isDebianLike } from '../host/linux.js';
import { layoutFor } from '../host/index.js';
import type { AptSourceSpec } from '../manifest/schema.js';
import { NotAvailable, type PlannedArchive, type Resolution, type SourceContext } from '../sources/types.js';
import { inRange } from '../versions/range.js';
import { debianUpstream, meetsAll } from '../versions/order.js';

export interface AptRecord {
  package: string;
  version: string;
  architecture?: string;
  filename?: string;
  sha256?: string;
  size?: number;
}

/** Parses `apt-cache show` output (RFC 822 stanzas); continuation lines are ignored. */
export function parseAptCacheShow(text: string): AptRecord[] {
  const out: AptRecord[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const f: Record<string, string> = {};
    for (const line of stanza.split('\n')) {
      const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
      if (m) f[m[1]!.toLowerCase()] = m[2]!.trim();
    }
    if (!f.package || !f.version) continue;
    out.push({
      package: f.package,
      version: f.version,
      architecture: f.architecture,
      filename: f.filename,
      sha256: f.sha256,
      size: f.size ? Number(f.size) : undefined,
    });
  }
  return out;
}

/** `1.8.12-1` -> `1.8.12`: the upstream version without epoch or Debian revision. */
export async function resolveApt(spec: AptSourceSpec, ctx: SourceContext): Promise<Resolution> {
  if (!ctx.host.native || !layoutFor(ctx.host.platform).systemPackages || !isDebianLike(ctx.host.distro)) {
    throw new NotAvailable('apt is only used on a Debian or Ubuntu machine installing for itself');
  }
  const archives: PlannedArchive[] = [];
  // One apt-cache call for all packages: each call loads apt's whole cache (most of a second).
  const r = await ctx.deps.exec('apt-cache', ['show', '--no-all-versions', ...spec.packages], { timeoutMs: 30_000 });
  if (r.failedToStart) throw new NotAvailable(`apt-cache cannot run: ${r.failedToStart}`);
  const records = parseAptCacheShow(r.stdout);
  for (const pkg of spec.packages) {
    const rec = records.find((x) => x.package === pkg);
    if (!rec) throw new NotAvailable(`apt knows no package ${pkg} (run apt-get update?)`);
    if (!rec.sha256) throw new NotAvailable(`apt lists ${pkg} without a SHA256`);
    if (!inRange('apt', rec.version, spec.versions)) {
      throw new NotAvailable(`apt has ${pkg} ${rec.version}, outside ${spec.versions}`);
    }
    if (!meetsAll(rec.version, ctx.constraints ?? [], 'debian')) {
      throw new NotAvailable(`apt has ${pkg} ${rec.version}, which does not meet ${ctx.constraints!.map((c) => c.text).join(', ')}`);
    }
    archives.push({
      package: pkg,
      version: rec.version,
      filename: rec.filename ? path.posix.basename(rec.filename) : `${pkg}_${rec.version}.deb`,
      url: `apt:${pkg}=${rec.version}`,
      sha256: rec.sha256,
      size: rec.size,
      format: 'deb',
      map: spec.map,
    });
  }
  const distro = ctx.host.distro!;
  return {
    source: 'apt',
    origin: distro.prettyName ?? distro.id,
    version: debianUpstream(archives[0]!.version),
    archives,
  };
}
