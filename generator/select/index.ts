/**
 * Stage 2, select: which tools of which release each profile serves.
 */
export { select, type SelectedTool, type Selection, selectTools } from './select.js';
export { deprecationNote, deprecations, type Deprecation } from './deprecations.js';
