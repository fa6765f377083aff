export { analyze, splitWords, stem } from './text.js';
export { createToolIndex, ownName } from './tool-index.js';
export type { SearchableTool, SearchHit, ToolIndex } from './types.js';
