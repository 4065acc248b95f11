// Check: LEVEL_ZERO_V1_SDK_PATH / ZE_PATH (what Triton reads) point at a directory with headers and the link library.
import { EnvVars } from '../../base/env-names.js';
import { nodeLayout } from '../../platform/index.js';
import { checkSdkPath, type SdkPathCheck } from '../../machine/headers.js';
import type { Check } from '../types.js';
import { envScriptHint } from './shared.js';

export const sdkPathCheck: Check = {
  id: 'sdk-path',
  title: 'LEVEL_ZERO_V1_SDK_PATH',
  group: 'driver',
  async run(ctx) {
    const env = ctx.deps.env;
    const vars = [EnvVars.LEVEL_ZERO_V1_SDK_PATH, EnvVars.ZE_PATH].filter((v) => env[v]);
    if (vars.length === 0) {
      const who = nodeLayout(ctx.deps.platform).remedies.noSdkPath;
      return {
        status: who ? 'warn' : 'skip',
        message: `neither LEVEL_ZERO_V1_SDK_PATH nor ZE_PATH is set, so Triton relies on the compiler's default paths${who ? `: ${who}` : ''}; ${await envScriptHint(ctx, 'sets both')}`,
      };
    }
    const results: SdkPathCheck[] = [];
    for (const v of vars) results.push(await checkSdkPath(ctx.deps, v, env[v]!));
    const details = { results };
    const bad = results.filter((r) => !r.hasHeaders || !r.hasLinkLibrary);
    const problems = bad.map((r) => `${r.variable}=${r.dir} has no ${r.missing.join(' and no ')}`);
    if (vars.length === 2 && env[EnvVars.LEVEL_ZERO_V1_SDK_PATH] !== env[EnvVars.ZE_PATH]) {
      problems.push(`LEVEL_ZERO_V1_SDK_PATH and ZE_PATH differ (${env[EnvVars.LEVEL_ZERO_V1_SDK_PATH]} vs ${env[EnvVars.ZE_PATH]}); tools disagree on which one to use`);
    }
    if (bad.some((r) => !r.hasHeaders)) {
      return { status: 'fail', message: problems.join('; '), fix: `point it at a directory with include/level_zero: ${await envScriptHint(ctx, 'sets both to the prefix')}`, details };
    }
    if (problems.length) return { status: 'warn', message: problems.join('; '), fix: await envScriptHint(ctx, 'sets both to the prefix'), details };
    return { status: 'ok', message: results.map((r) => `${r.variable}=${r.dir} has headers and the link library`).join('; '), details };
  },
};
