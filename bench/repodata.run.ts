// Benchmark: reading two packages' records from a conda-forge-sized repodata.json, by the streaming scanner and by
// JSON.parse of the whole document (the peer), each in its own process so peak memory is its own.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { tempDir } from '../test/e2e/cli.js';
import { writeResults } from './util.js';

const RECORDS = Number(process.env.XPU_SETUP_BENCH_REPODATA_RECORDS ?? 400_000);
let work: string;

beforeAll(async () => {
  work = await tempDir('bench-repodata');
});
afterAll(() => fs.rm(work, { recursive: true, force: true }));

async function writeSynthetic(file: string): Promise<number> {
  const fh = await fs.open(file, 'w');
  await fh.write('{"info":{"subdir":"linux-64"},"packages":{');
  const batch: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const name = i === RECORDS >> 1 ? 'level-zero' : `pkg${i % 5000}`;
    const rec = {
      build: `h${i.toString(16)}_0`, build_number: i % 3, depends: ['libgcc >=13', '__glibc >=2.17,<3.0.a0', 'libstdcxx >=13'],
      license: 'MIT', md5: 'd41d8cd98f00b204e9800998ecf8427e', name, sha256: 'e'.repeat(64), size: 123456 + i, subdir: 'linux-64',
      timestamp: 1700000000000 + i, version: `1.${i % 40}.${i % 7}`,
    };
    batch.push(`${i ? ',' : ''}"${name}-${rec.version}-${rec.build}.tar.bz2":${JSON.stringify(rec)}`);
    if (batch.length === 10_000) await fh.write(batch.splice(0).join(''));
  }
  await fh.write(batch.join('') + '},"packages.conda":{},"removed":[],"repodata_version":1}');
  await fh.close();
  return (await fs.stat(file)).size;
}

const SCAN = `
import { createReadStream } from 'node:fs';
import { RepodataScanner } from './dist/index/repodata-scan.js';
const s = new RepodataScanner(['level-zero']);
for await (const c of createReadStream(process.argv[1], { highWaterMark: 1 << 20 })) s.push(c);
console.log(Object.keys(s.result().packages).length);`;
const PARSE = `
import { readFileSync } from 'node:fs';
const d = JSON.parse(readFileSync(process.argv[1], 'utf8'));
console.log(Object.keys(d.packages).filter((f) => f.startsWith('level-zero-')).length);`;

async function measure(script: string, file: string): Promise<{ ms: number; maxRssMiB: number; found: string }> {
  const t0 = process.hrtime.bigint();
  const r = await execa('/usr/bin/time', ['-f', '%M', process.execPath, '--input-type=module', '-e', script, file], { cwd: path.join(__dirname, '..'), reject: false });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.exitCode !== 0) return { ms: Math.round(ms), maxRssMiB: NaN, found: `failed: ${String(r.stderr).slice(-300)}` };
  const kib = Number(String(r.stderr).trim().split('\n').pop());
  return { ms: Math.round(ms), maxRssMiB: Math.round(kib / 1024), found: String(r.stdout).trim() };
}

it('repodata: streaming scanner vs JSON.parse of the whole document', async () => {
  const file = path.join(work, 'repodata.json');
  const bytes = await writeSynthetic(file);
  const scan = await measure(SCAN, file);
  const parse = await measure(PARSE, file);
  const doc = { records: RECORDS, megabytes: +(bytes / 1048576).toFixed(1), scanner: scan, jsonParse: parse, timeRatio: +(scan.ms / parse.ms).toFixed(2), memoryRatio: +(scan.maxRssMiB / parse.maxRssMiB).toFixed(2) };
  const out = await writeResults('repodata', doc);
  console.log(JSON.stringify(doc, null, 2));
  console.log(`written to ${out}`);
});
