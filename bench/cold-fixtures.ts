// Bench fixtures: the test index's packages plus an intel-cmplr-lib-ur wheel of a chosen size (the real one is ~32 MB),
// its bulk an incompressible payload file, so time follows bytes as it does with the real wheel.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { buildFixturePackages, buildWheel, compileUrDouble, wheelDistName, type FixtureArtifact, type FixturePackages } from '../test/support/packages.js';

const NAME = 'intel-cmplr-lib-ur';

/**
 * A wheel shaped like intel-cmplr-lib-ur (`<dist>.data/data/lib/*`): the UR test-double libraries plus
 * `lib/xpu-setup-bench-payload.bin` of random bytes, at a version above every fixture's so the plan picks it.
 */
export async function bigUrWheel(dir: string, version: string, payloadBytes: number): Promise<FixtureArtifact> {
  const libs = await compileUrDouble('2025.3.1', path.join(dir, 'ur-double'), '1.0.2');
  const dist = `${wheelDistName(NAME)}-${version}`;
  const built = await buildWheel({
    name: NAME,
    version,
    tag: 'py2.py3-none-manylinux_2_28_x86_64',
    summary: "xpu-setup bench double of Intel's Unified Runtime wheel (random payload, not the real intel-cmplr-lib-ur)",
    requiresDist: ['umf==1.0.*'],
    files: [
      ...[...libs].map(([lib, data]) => ({ path: `${dist}.data/data/lib/${lib}`, data, mode: 0o755 })),
      { path: `${dist}.data/data/lib/xpu-setup-bench-payload.bin`, data: randomBytes(payloadBytes) },
    ],
  });
  const file = path.join(dir, built.filename);
  await fs.writeFile(file, built.bytes);
  const meta = Buffer.from(built.metadata);
  return {
    format: 'wheel',
    name: NAME,
    version,
    platform: 'linux-x64',
    filename: built.filename,
    path: file,
    sha256: createHash('sha256').update(built.bytes).digest('hex'),
    md5: createHash('md5').update(built.bytes).digest('hex'),
    size: built.bytes.length,
    members: built.members,
    wheel: { metadata: built.metadata, metadataSha256: createHash('sha256').update(meta).digest('hex') },
  };
}

/** The test fixtures with the big wheel added: the PyPI index then offers it as the newest release. */
export async function fixturesWithBigWheel(dir: string, payloadBytes: number, version = '2099.0.0'): Promise<FixturePackages> {
  const base = await buildFixturePackages();
  await fs.mkdir(dir, { recursive: true });
  return { ...base, artifacts: [...base.artifacts, await bigUrWheel(dir, version, payloadBytes)] };
}
