// Table columns come from the resource registry (each declaration's `view`); this module
// re-exports the column types for the printer and keys the views by registry name.
//
// Type-only imports from zod's side: this module must not load zod.
import { resources, type ResourceName } from '../api/registry/index.js';

export { col, timeCol, uidCol, type Column, type View } from '../api/registry/define.js';

type Views = { [N in ResourceName]: (typeof resources)[N]['view'] };

export const views = Object.fromEntries(Object.entries(resources).map(([name, d]) => [name, d.view])) as Views;

