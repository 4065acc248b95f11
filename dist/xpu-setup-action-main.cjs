// The action's main step (action.yml runs it): the bundle beside it, with this process's real side effects.
'use strict';
const action = require('./xpu-setup-action.cjs');
action.actionMain(action.realDeps()).then((code) => {
  process.exitCode = code;
  // On Windows runners, work still settling on other threads can abort node24 as it ends (nodejs/node#56645): the
  // event loop stays open a moment longer so that it lands first.
  if (process.platform === 'win32') setTimeout(() => {}, 100);
});
