export { bwrapArgs, findBwrap, jailSupport, resetJailSupport, SECCOMP_FD, systemLibraries } from './bwrap.js';
export { executorJail } from './executor-view.js';
export {
  GATE_HTTP_SOCKET,
  GATE_SOCKS_SOCKET,
  type JailAt,
  type JailLaunch,
  jailLaunch,
  proxyEnv,
  RELAY_HTTP_PORT,
  RELAY_SOCKS_PORT,
  spawnJailed,
} from './launch.js';
export { jailedPid } from './pids.js';
export { type JailPlacement, jailPlacement, type ProcessJail, processJailOf } from './placement.js';
export {
  type ExecViewOptions,
  execView,
  GATE_DIR_IN_JAIL,
  holdControlPaths,
  JailHoldError,
  PROCESS_TMP_BYTES,
  type ResolvedProcessGrants,
  type ServerViewOptions,
  serverView,
  whichCommand,
} from './process-view.js';
export { DENIED_SYSCALLS, seccompProgram } from './seccomp.js';
export type { JailBind, JailMode, JailSpec, JailSupport, NetGate, Walls } from './types.js';
