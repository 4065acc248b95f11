// The entry of the worker thread a full repodata scan starts (full-scan.ts); scripts/bundle.mjs builds it beside the
// bundle as xpu-setup-scan-worker.cjs.
import { runScanWorker } from './full-scan.js';

runScanWorker();
