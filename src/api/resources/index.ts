// Every resource module the API serves. Add a module's factory here; the composition root builds them
// all with the same dependencies.
import type { ResourceModuleFactory } from './resource-module.js';

export const resourceModules: readonly ResourceModuleFactory[] = [];
