// Every legal order of destroying what a finished launch and copy used (kernel, module, command list, queue, fence,
// events, memory) is clean under valgrind's memcheck, through Debian's real loader 1.8.12 and the CPU reference driver.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverBuildArgs, driverEnv, KERNELS_DIR, runKeyValues } from '../support/refdriver.js';

const source = path.join(import.meta.dirname, '..', 'native', 'refdriver_lifetimes.c');
const suppressions = path.join(import.meta.dirname, '..', 'native', 'valgrind.supp');
const vectorAdd = path.join(KERNELS_DIR, 'vector_add.spv');
const VALGRIND_ERROR = 99;

// The spec's only constraints: a kernel goes before its module, events before their pool. Everything else is free once
// the client has seen the last command's event, the only thing it waits on here.
const regularOrders = [
  'kernel,module,list,fence,queue,event,pool,memory',
  'kernel,list,module,fence,queue,event,pool,memory',
  'list,kernel,module,fence,queue,event,pool,memory',
  'fence,queue,list,kernel,module,event,pool,memory',
  'kernel,module,reset,list,fence,queue,event,pool,memory',
  'event,pool,memory,kernel,module,fence,queue,list',
];
const immediateOrders = [
  'kernel,module,list,event,pool,memory',
  'kernel,list,module,event,pool,memory',
  'list,kernel,module,event,pool,memory',
  'event,pool,memory,kernel,module,list',
];

let dir = '';
let driver = '';
let program = '';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-refdriver-lifetimes-'));
  driver = path.join(dir, 'libze_xpu_setup_refdriver.so');
  program = path.join(dir, 'refdriver_lifetimes');
  await execa('cc', driverBuildArgs('/usr/include', driver));
  await execa('cc', ['-O2', '-g', '-I/usr/include', source, '-o', program, '-lze_loader']);
  // Once without valgrind: PoCL's cache then holds the built kernel, which memcheck would take most of a minute to build.
  const warm = await runKeyValues(program, [vectorAdd, 'regular', regularOrders[0]!], driverEnv(dir, { ZE_ENABLE_ALT_DRIVERS: driver }));
  expect(warm.exitCode, warm.stdout + warm.stderr).toBe(0);
}, 300_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function destroyUnderValgrind(kind: 'regular' | 'immediate', order: string) {
  const r = await runKeyValues('valgrind', ['-q', `--error-exitcode=${VALGRIND_ERROR}`, `--suppressions=${suppressions}`, program, vectorAdd, kind, order],
    driverEnv(dir, { ZE_ENABLE_ALT_DRIVERS: driver }), 300_000);
  expect(r.stderr).not.toMatch(/Invalid (read|write|free)|double free|Process terminating/);
  expect(r.exitCode, r.stdout + r.stderr).toBe(0);
  // The results were computed and checked before anything was destroyed, and every destruction returned SUCCESS.
  expect(r.values.get('wrong')).toBe('0');
  const destroyed = r.stdout.split('\n').filter((l) => l.startsWith('destroyed=')).map((l) => l.slice('destroyed='.length));
  expect(destroyed).toEqual(order.split(','));
}

describe.skipIf(process.platform !== 'linux')('destroying in every legal order is clean under valgrind', () => {
  it.each(regularOrders)('a regular list executed on a queue with a fence: %s', { timeout: 300_000 }, (order) => destroyUnderValgrind('regular', order));
  it.each(immediateOrders)('an asynchronous immediate list (its worker thread): %s', { timeout: 300_000 }, (order) => destroyUnderValgrind('immediate', order));
});
