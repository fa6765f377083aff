export { bwrapArgs, findBwrap, jailSupport, resetJailSupport, SECCOMP_FD, systemLibraries } from './bwrap.js';
export { executorJail } from './executor-view.js';
export { jailedPid } from './pids.js';
export { DENIED_SYSCALLS, seccompProgram } from './seccomp.js';
export type { JailBind, JailMode, JailSpec, JailSupport, Walls } from './types.js';
