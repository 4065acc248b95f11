// Serves the test fixtures' local index (with the GPU driver's conda packages, Debian 12's and conda-forge's shapes) on 127.0.0.1 until interrupted, for trying the CLI by hand (scripts/fixture-index.sh).
import { buildGpuDriverConda } from './gpu-driver-conda.js';
import { buildCondaForgeDriver } from './gpu-driver-conda-forge.js';
import { startFixtureIndex } from './index-server.js';
import { buildFixturePackages } from './packages.js';

const [base, gpuDriver, condaForge] = await Promise.all([buildFixturePackages(), buildGpuDriverConda(), buildCondaForgeDriver()]);
const index = await startFixtureIndex({ fixtures: { ...base, artifacts: [...base.artifacts, ...gpuDriver, ...condaForge] } });
const urls = {
  url: index.url,
  conda: { bookworm: index.condaChannelUrl('bookworm'), trixie: index.condaChannelUrl('trixie'), all: index.condaChannelUrl('all'), newer: index.condaChannelUrl('newer'), gpuDriver: index.condaChannelUrl('gpu-driver'), gpuDriverCf: index.condaChannelUrl('gpu-driver-cf'), gpuDriverCfIgc: index.condaChannelUrl('gpu-driver-cf-igc') },
  simple: index.simpleUrl,
  htmlOnlySimple: index.htmlOnlySimpleUrl,
  jsonApi: index.jsonApiUrl,
};
process.stdout.write(JSON.stringify(urls, null, 2) + '\n');
const stop = () => void index.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
