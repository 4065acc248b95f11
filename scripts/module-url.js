// Injected into the bundle (scripts/bundle.mjs): the bundle's own URL, where the sources say import.meta.url.
export const __xpuModuleUrl = require('node:url').pathToFileURL(__filename).href;
