// The detection layer: GPUs, kernel and user-mode drivers, loaders, headers, environment traps. Read-only.
export * from './types.js';
export * from './gpu-ids.js';
export * from './pci.js';
export * from './windows.js';
export * from './gpu.js';
export * from './render-nodes.js';
export * from './ldconfig.js';
export * from './packages.js';
export * from './loaders.js';
export * from './load-check.js';
export * from './headers.js';
export * from './env-traps.js';
export * from './user-driver.js';
export * from './ur.js';
export * from './installs.js';
