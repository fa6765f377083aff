export type { Dashboard, DashboardContext } from './dashboard.js';
export { bothWatches, createDashboard, SECURITY_HEADERS } from './dashboard.js';
export { fold, MAX_PAYLOAD, MAX_STRING } from './fold.js';
export { EventHub } from './hub.js';
export type {
  DashboardCallResponse,
  DashboardEvent,
  DashboardEventBody,
  DashboardHiddenTool,
  DashboardMcpServer,
  DashboardOptions,
  DashboardPlugin,
  DashboardTool,
  ErrorPlace,
} from './types.js';
