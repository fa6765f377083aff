import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { builtEntry, PACKAGE_ROOT } from '../util/package.js';
import { bwrapArgs, SECCOMP_FD } from './bwrap.js';
import { withoutStrayDescriptors } from './descriptors.js';
import { GATE_DIR_IN_JAIL } from './process-view.js';
import { seccompProgram } from './seccomp.js';
import type { JailSpec, NetGate } from './types.js';

/** Where the relay listens on a jail's loopback (the ports `HTTP_PROXY` and `ALL_PROXY` name). */
export const RELAY_HTTP_PORT = 3128;
export const RELAY_SOCKS_PORT = 1080;

/** A jail this machine can make: the bubblewrap to run, and whether a seccomp filter loads. */
export interface JailAt {
  readonly bwrap: string;
  readonly seccomp: boolean;
}

/** A process to start in a jail: bubblewrap's argv and environment, and the filter to hand it. */
export interface JailLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly program: Buffer | undefined;
}

/**
 * `argv` in the jail `spec` describes. With a network `gate`, the gate's socket folder is bound
 * into the jail and `argv` runs under the relay (`relay-main.ts`), with the proxy variables set;
 * without one the jail has no route out at all. The filter of a process tool keeps `AF_INET`
 * sockets (its namespace's own loopback is all they reach).
 */
export function jailLaunch(at: JailAt, spec: JailSpec, argv: readonly string[], gate?: NetGate): JailLaunch {
  const program = at.seccomp ? seccompProgram(process.arch, { inet: true }) : undefined;
  let full = { ...spec, seccomp: program !== undefined };
  let command = [...argv];
  if (gate !== undefined) {
    const relay = realpathSync(builtEntry('jail/relay-main.js'));
    const own = [
      { source: gate.dir, path: GATE_DIR_IN_JAIL },
      // The relay and the package.json that says it is a module, where the view lacks them.
      ...(spec.base === 'host'
        ? []
        : [
            { source: relay, path: relay },
            (() => {
              const manifest = path.join(realpathSync(PACKAGE_ROOT), 'package.json');
              return { source: manifest, path: manifest };
            })(),
          ]),
    ];
    full = {
      ...full,
      readOnlyOver: [...(spec.readOnlyOver ?? []), ...own],
      env: { ...spec.env, ...proxyEnv(gate.token, RELAY_HTTP_PORT, RELAY_SOCKS_PORT) },
    };
    command = [
      process.execPath,
      relay,
      GATE_DIR_IN_JAIL,
      String(RELAY_HTTP_PORT),
      String(RELAY_SOCKS_PORT),
      '--',
      ...argv,
    ];
  }
  return { file: at.bwrap, args: [...bwrapArgs(full), '--', ...command], env: full.env, program };
}

/**
 * Starts a {@link JailLaunch}: `stdio` for fds 0–2 (and on), the filter on {@link SECCOMP_FD},
 * which bubblewrap reads and closes before the command starts, and `/dev/null` at the number of
 * every descriptor the host would pass on without meaning to (jail/descriptors.ts). bubblewrap's own environment is
 * the jail's: nothing of the host's either.
 */
export function spawnJailed(
  launch: JailLaunch,
  stdio: readonly ('pipe' | 'ignore' | 'inherit')[],
  detached = false,
): ChildProcess {
  const all: ('pipe' | 'ignore' | 'inherit')[] = [...stdio];
  while (all.length < SECCOMP_FD) all.push('ignore');
  all[SECCOMP_FD] = launch.program === undefined ? 'ignore' : 'pipe';
  const child = spawn(launch.file, [...launch.args], {
    stdio: withoutStrayDescriptors(all) as StdioOptions,
    env: { ...launch.env },
    detached,
    windowsHide: true,
  });
  if (launch.program !== undefined) {
    const pipe = (child.stdio as unknown as (NodeJS.WritableStream | null)[])[SECCOMP_FD];
    pipe?.on('error', () => {});
    pipe?.end(launch.program);
  }
  return child;
}

/** The proxies' user name: the runtime's format (`srt`, or `srt.<id>`), which its proxies require. */
const PROXY_USER = 'srt';
/** The gate's sockets, in its folder (outside) and in {@link GATE_DIR_IN_JAIL} (inside). */
export const GATE_HTTP_SOCKET = 'http.sock';
export const GATE_SOCKS_SOCKET = 'socks.sock';

/** The proxy variables a jailed process gets, pointing at the relay on its own loopback. */
export function proxyEnv(token: string, httpPort: number, socksPort: number): Record<string, string> {
  const http = `http://${PROXY_USER}:${token}@127.0.0.1:${httpPort}`;
  const socks = `socks5h://${PROXY_USER}:${token}@127.0.0.1:${socksPort}`;
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: '',
    no_proxy: '',
    // Node's own fetch and http use the variables above only with this (Node >= 24).
    NODE_USE_ENV_PROXY: '1',
  };
}
