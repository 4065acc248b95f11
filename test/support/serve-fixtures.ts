// Serves the test fixtures' local index on 127.0.0.1 until interrupted, for trying the CLI by hand (scripts/fixture-index.sh).
import { startFixtureIndex } from './index-server.js';

const index = await startFixtureIndex();
const urls = {
  url: index.url,
  conda: { bookworm: index.condaChannelUrl('bookworm'), trixie: index.condaChannelUrl('trixie'), all: index.condaChannelUrl('all'), newer: index.condaChannelUrl('newer') },
  simple: index.simpleUrl,
  htmlOnlySimple: index.htmlOnlySimpleUrl,
  jsonApi: index.jsonApiUrl,
};
process.stdout.write(JSON.stringify(urls, null, 2) + '\n');
const stop = () => void index.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
