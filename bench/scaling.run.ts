// Benchmark: the same bytes as 1, 4 and 16 packages (one component each, pinned URLs) from a server that answers every
// request after a fixed latency, against the floor `curl | tee >(sha256sum) > f && unzip` of the same files one after
// another. Time should follow bytes, not packages times latency.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { BIN, scrubbedEnv, tempDir } from '../test/e2e/cli.js';
import { sha256 } from '../test/support/faulty-server.js';
import { zipBuffer } from '../test/support/packages.js';
import { alternate, ratio, timeRun, writeResults, type Case } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 5);
const TOTAL_MIB = Number(process.env.XPU_SETUP_BENCH_SCALING_MIB ?? 32);
const LATENCY_MS = Number(process.env.XPU_SETUP_BENCH_LATENCY_MS ?? 25);
const COUNTS = [1, 4, 16];
let work: string;
let server: Server;
let base: string;

beforeAll(async () => {
  work = await tempDir('bench-scaling');
  const files = path.join(work, 'files');
  await fs.mkdir(files);
  // Every request waits LATENCY_MS before its answer starts, like a nearby mirror.
  server = createServer((req, res) => {
    const file = path.join(files, path.basename(decodeURIComponent(req.url ?? '')));
    setTimeout(() => {
      fs.stat(file).then(
        (st) => {
          res.writeHead(200, { 'content-length': st.size, 'content-type': 'application/zip' });
          createReadStream(file).pipe(res);
        },
        () => res.writeHead(404).end(),
      );
    }, LATENCY_MS);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await fs.rm(work, { recursive: true, force: true });
});

interface Built {
  manifests: string;
  urls: string[];
}

/** `count` zips of incompressible bytes, TOTAL_MIB in all, each the one archive of its own component's manifest. */
async function build(count: number): Promise<Built> {
  const manifests = path.join(work, `manifests-${count}`);
  await fs.mkdir(manifests);
  const urls: string[] = [];
  const each = Math.floor((TOTAL_MIB * 2 ** 20) / count);
  for (let i = 0; i < count; i++) {
    const name = `bench-${count}-${String(i).padStart(2, '0')}`;
    const zip = await zipBuffer([{ path: `pkg/lib/lib${name}.so`, data: randomBytes(each) }], true);
    await fs.writeFile(path.join(work, 'files', `${name}.zip`), zip);
    const url = `${base}/${name}.zip`;
    urls.push(url);
    const manifest = {
      schema: 1,
      name,
      summary: 'xpu-setup bench double: random bytes',
      features: [],
      platforms: {
        'linux-x64': {
          provides: [{ path: `lib/lib${name}.so`, required: false }],
          sources: [{ kind: 'url', package: name, version: '1.0.0', url, sha256: sha256(zip), size: zip.length, map: [{ from: 'pkg/lib/', to: 'lib/' }] }],
        },
      },
    };
    await fs.writeFile(path.join(manifests, `${name}.json`), JSON.stringify(manifest, null, 2));
  }
  return { manifests, urls };
}

function floorScript(urls: string[]): string {
  return urls
    .map((u, i) => `curl -sf '${u}' | tee >(sha256sum >/dev/null) > "$D/f${i}.zip" && unzip -qo "$D/f${i}.zip" -d "$D/x"`)
    .join(' && ');
}

it(`${TOTAL_MIB} MiB as 1, 4 and 16 packages, ${LATENCY_MS} ms per request`, async () => {
  const built = new Map<number, Built>();
  for (const c of COUNTS) built.set(c, await build(c));
  const env = scrubbedEnv(path.join(work, 'home'), {});
  const dir = (name: string, i: number) => path.join(work, `${name}-${i}`);
  const cases: Case[] = COUNTS.flatMap((count): Case[] => {
    const b = built.get(count)!;
    return [
      {
        name: `xpu-setup, ${count} package${count === 1 ? '' : 's'} (cold, --no-probe)`,
        before: async (i) => fs.rm(dir(`x${count}`, i), { recursive: true, force: true }),
        run: (i) => timeRun([process.execPath, BIN, '--manifests', b.manifests, '--prefix', path.join(dir(`x${count}`, i), 'prefix'), '--cache-dir', path.join(dir(`x${count}`, i), 'cache'), '--no-probe', '--quiet', '--refresh'], { env }),
      },
      {
        name: `floor, ${count} package${count === 1 ? '' : 's'}: curl | tee >(sha256sum) > f && unzip, one after another`,
        before: async (i) => {
          await fs.rm(dir(`f${count}`, i), { recursive: true, force: true });
          await fs.mkdir(dir(`f${count}`, i), { recursive: true });
        },
        run: (i) => timeRun(['bash', '-c', `D='${dir(`f${count}`, i)}'; set -o pipefail; ${floorScript(b.urls)}`]),
      },
    ];
  });
  const results = await alternate(cases, N);
  const by = (prefix: string) => results.find((r) => r.name.startsWith(prefix))!;
  const ratios = {
    xpuSetup16vs1Wall: ratio(by('xpu-setup, 16').medianWallMs, by('xpu-setup, 1 ').medianWallMs),
    xpuSetup4vs1Wall: ratio(by('xpu-setup, 4').medianWallMs, by('xpu-setup, 1 ').medianWallMs),
    floor16vs1Wall: ratio(by('floor, 16').medianWallMs, by('floor, 1 ').medianWallMs),
    vsFloor1: ratio(by('xpu-setup, 1 ').medianWallMs, by('floor, 1 ').medianWallMs),
    vsFloor16: ratio(by('xpu-setup, 16').medianWallMs, by('floor, 16').medianWallMs),
  };
  const file = await writeResults('scaling', {
    rounds: N,
    totalMiB: TOTAL_MIB,
    latencyMs: LATENCY_MS,
    method: 'alternating rounds, medians; wall and CPU (user+sys of the process tree) from bash time; one local server on 127.0.0.1 that waits latencyMs before each answer',
    results,
    ratios,
  });
  console.log(results.map((r) => `${String(r.medianWallMs).padStart(6)} ms wall ${String(r.medianCpuMs).padStart(6)} ms cpu  ${r.name}`).join('\n'));
  console.log(`ratios: ${JSON.stringify(ratios)}\nwritten to ${file}`);
});
