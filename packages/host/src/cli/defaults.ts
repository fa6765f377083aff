/** `toolhost dev` serves on this port unless `--port` says otherwise; a taken port is an error. */
export const DEFAULT_DEV_PORT = 7337;
