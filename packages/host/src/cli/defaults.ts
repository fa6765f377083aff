/** `toolhost dev` tries this port first; when it is taken (and no --port was given), the next ones. */
export const DEFAULT_DEV_PORT = 7337;
