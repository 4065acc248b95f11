// The CLI from the action's bundle: what setup's proof runs as a child process on a runner.
'use strict';
require('./xpu-setup-action.cjs').main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
