import * as path from 'node:path';
import { it } from 'vitest';
import { startFixtureIndex } from '../support/index-server.js';
import { DEBIAN_12_STACK, runCli, scrubbedEnv, tempDir } from './cli.js';
it('scratch', async () => {
  const index = await startFixtureIndex();
  const work = await tempDir('scratch');
  const env = scrubbedEnv(path.join(work, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: DEBIAN_12_STACK });
  const args = ['--prefix', path.join(work, 'p'), '--cache-dir', path.join(work, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm')];
  for (const a of [args, args, [...args, '--verbose'], ['plan', ...args], ['doctor', '--prefix', path.join(work, 'p'), '--check', 'platform,gpu,kernel-driver,render-node,user-driver,ze-loader,headers,sdk-path,ur,env,compiler,prefix']]) {
    const r = await runCli(a, env);
    console.log('=====', a[0], 'EXIT', r.exitCode, 'lines', r.stderr.split('\n').filter(Boolean).length, 'maxlen', Math.max(...r.stderr.split('\n').map((l) => l.length)), '\n' + r.stderr + '\n--stdout--\n' + r.stdout.slice(0, 3000));
  }
  await index.close();
}, 300000);
