// The action's post step (action.yml runs it): the bundle beside it, with this process's real side effects.
'use strict';
const action = require('./xpu-setup-action.cjs');
action.actionPost().then((code) => {
  process.exitCode = code;
});
