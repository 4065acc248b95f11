// Serves the test fixtures' local index (with the GPU driver's conda packages) on 127.0.0.1 until interrupted, for trying the CLI by hand (scripts/fixture-index.sh).
import { buildGpuDriverConda } from './gpu-driver-conda.js';
import { startFixtureIndex } from './index-server.js';
import { buildFixturePackages } from './packages.js';

const [base, gpuDriver] = await Promise.all([buildFixturePackages(), buildGpuDriverConda()]);
const index = await startFixtureIndex({ fixtures: { ...base, artifacts: [...base.artifacts, ...gpuDriver] } });
const urls = {
  url: index.url,
  conda: { bookworm: index.condaChannelUrl('bookworm'), trixie: index.condaChannelUrl('trixie'), all: index.condaChannelUrl('all'), newer: index.condaChannelUrl('newer'), gpuDriver: index.condaChannelUrl('gpu-driver') },
  simple: index.simpleUrl,
  htmlOnlySimple: index.htmlOnlySimpleUrl,
  jsonApi: index.jsonApiUrl,
};
process.stdout.write(JSON.stringify(urls, null, 2) + '\n');
const stop = () => void index.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
