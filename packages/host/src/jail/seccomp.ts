/**
 * The jail's seccomp filter, as the classic BPF program bubblewrap loads with `--seccomp FD`
 * (an array of `struct sock_filter`: u16 code, u8 jt, u8 jf, u32 k, little-endian on both
 * architectures it supports). A deny list, not an allow list: Node, V8 and libuv make several
 * hundred kinds of system call, and an allow list would break on the next Node. What it denies is
 * what a process that escaped an isolate would reach for next, and what the executor never needs:
 *
 * - other processes' memory and control: `ptrace`, `process_vm_readv/writev`, `pidfd_getfd`,
 *   `process_madvise`;
 * - new namespaces and mounts (the usual way from a user namespace to a kernel bug): `unshare`,
 *   `setns`, `clone` with any `CLONE_NEW*` flag, `clone3` (whose flags sit behind a pointer a
 *   filter cannot read: `ENOSYS`, so libc falls back to `clone`), `mount`, `umount2`,
 *   `pivot_root`, `chroot` and the new mount API (`open_tree`, `open_tree_attr`, `move_mount`,
 *   `fsopen`, …);
 * - kernel surfaces with a record of privilege escalations: `bpf`, `perf_event_open`,
 *   `userfaultfd`, `io_uring_*` (which also runs work the filter never sees), `keyctl`,
 *   `add_key`, `request_key`, `open_by_handle_at`, `name_to_handle_at`, `lookup_dcookie`,
 *   `fanotify_init`, `quotactl`, `quotactl_fd`, `personality`, `modify_ldt`, `iopl`, `ioperm`,
 *   `uselib`;
 * - the machine's own state: modules, `kexec`, `reboot`, `swapon/off`, `acct`, `syslog`, the
 *   clock, `sethostname`, `setdomainname`, `vhangup`;
 * - sockets other than `AF_UNIX` (the jail has its own network namespace already: this keeps a
 *   raw or netlink socket out of reach too); a process tool's jail (`exec`, a stdio MCP server)
 *   also keeps `AF_INET` and `AF_INET6`, which reach only the jail's own loopback (where the
 *   relay to the host's filtering proxies listens), never the host's network.
 *
 * A denied call fails with `EPERM` (`EAFNOSUPPORT` for a socket family, `ENOSYS` for `clone3`);
 * nothing is killed, so a library that probes a call falls back. A call made under another ABI
 * than the filter's (x86's 32-bit or x32 entry points) kills the process: the numbers would not
 * mean what the list says.
 */

/** The architectures the filter knows, by `process.arch`. */
export type SeccompArch = 'x64' | 'arm64';

interface ArchTable {
  /** `AUDIT_ARCH_*` as the kernel puts it in `seccomp_data.arch`. */
  readonly audit: number;
  readonly numbers: Readonly<Record<string, number>>;
}

const shared = {
  pidfd_getfd: 438,
  process_madvise: 440,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  open_tree_attr: 467,
  quotactl_fd: 443,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  clone3: 435,
};

/** Syscall numbers, from the kernel's `unistd_64.h` (x86_64) and `asm-generic/unistd.h` (arm64). */
const ARCHES: Readonly<Record<SeccompArch, ArchTable>> = {
  x64: {
    audit: 0xc000003e,
    numbers: {
      ...shared,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      chroot: 161,
      unshare: 272,
      setns: 308,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      personality: 135,
      acct: 163,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      syslog: 103,
      settimeofday: 164,
      clock_settime: 227,
      adjtimex: 159,
      clock_adjtime: 305,
      open_by_handle_at: 304,
      name_to_handle_at: 303,
      lookup_dcookie: 212,
      fanotify_init: 300,
      quotactl: 179,
      vhangup: 153,
      sethostname: 170,
      setdomainname: 171,
      iopl: 172,
      ioperm: 173,
      modify_ldt: 154,
      uselib: 134,
      clone: 56,
      socket: 41,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    numbers: {
      ...shared,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      chroot: 51,
      unshare: 97,
      setns: 268,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      personality: 92,
      acct: 89,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
      syslog: 116,
      settimeofday: 170,
      clock_settime: 112,
      adjtimex: 171,
      clock_adjtime: 266,
      open_by_handle_at: 265,
      name_to_handle_at: 264,
      lookup_dcookie: 18,
      fanotify_init: 262,
      quotactl: 60,
      vhangup: 58,
      sethostname: 161,
      setdomainname: 162,
      clone: 220,
      socket: 198,
    },
  },
};

/** Calls denied outright (those the architecture has); `clone`, `clone3` and `socket` are filtered apart. */
export const DENIED_SYSCALLS: readonly string[] = [
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'pidfd_getfd',
  'process_madvise',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'unshare',
  'setns',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'open_tree_attr',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'keyctl',
  'add_key',
  'request_key',
  'personality',
  'acct',
  'swapon',
  'swapoff',
  'reboot',
  'syslog',
  'settimeofday',
  'clock_settime',
  'adjtimex',
  'clock_adjtime',
  'open_by_handle_at',
  'name_to_handle_at',
  'lookup_dcookie',
  'fanotify_init',
  'quotactl',
  'quotactl_fd',
  'vhangup',
  'sethostname',
  'setdomainname',
  'iopl',
  'ioperm',
  'modify_ldt',
  'uselib',
];

// Classic BPF, as <linux/filter.h> and <linux/seccomp.h> define it.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;
/** `seccomp_data` offsets: the call's number, its architecture, the low half of its first argument. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;
/** x86's x32 ABI marks its numbers with this bit; its calls reach the same kernel entry points. */
const X32_BIT = 0x40000000;
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (and CLONE_NEWTIME). */
const CLONE_NAMESPACES =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;

type Instruction = readonly [code: number, jt: number, jf: number, k: number];

/**
 * The filter for `arch` as bytes for bubblewrap's `--seccomp`; undefined for an architecture it
 * does not know (the jail then has its namespaces, capabilities and `no_new_privs`, no filter).
 */
export function seccompProgram(
  arch: string = process.arch,
  options: { readonly inet?: boolean } = {},
): Buffer | undefined {
  const table = ARCHES[arch as SeccompArch];
  if (table === undefined) return undefined;
  const { numbers } = table;
  const program: Instruction[] = [
    [LD_W_ABS, 0, 0, ARCH],
    [JEQ_K, 1, 0, table.audit],
    [RET_K, 0, 0, RET_KILL_PROCESS],
    [LD_W_ABS, 0, 0, NR],
  ];
  if (arch === 'x64') {
    // Any number with the x32 bit: kill (it is another ABI's entry point).
    program.push([JSET_K, 0, 1, X32_BIT], [RET_K, 0, 0, RET_KILL_PROCESS]);
  }
  const deny = (nr: number, errno: number) => {
    program.push([JEQ_K, 0, 1, nr], [RET_K, 0, 0, RET_ERRNO | errno]);
  };
  for (const name of DENIED_SYSCALLS) {
    const nr = numbers[name];
    if (nr !== undefined) deny(nr, EPERM);
  }
  deny(numbers.clone3 as number, ENOSYS);
  // clone: refused only with a namespace flag (threads and plain forks go on).
  program.push(
    [JEQ_K, 0, 4, numbers.clone as number],
    [LD_W_ABS, 0, 0, ARG0_LOW],
    [JSET_K, 0, 1, CLONE_NAMESPACES],
    [RET_K, 0, 0, RET_ERRNO | EPERM],
    [RET_K, 0, 0, RET_ALLOW],
  );
  // socket: AF_UNIX only, or with `inet` AF_INET and AF_INET6 too (the accumulator holds the
  // call's number here). A family that matches jumps to the allow at the end.
  const families = options.inet === true ? [AF_UNIX, AF_INET, AF_INET6] : [AF_UNIX];
  program.push(
    [JEQ_K, 0, families.length + 3, numbers.socket as number],
    [LD_W_ABS, 0, 0, ARG0_LOW],
    ...families.map((family, i): Instruction => [JEQ_K, families.length - i, 0, family]),
    [RET_K, 0, 0, RET_ERRNO | EAFNOSUPPORT],
    [RET_K, 0, 0, RET_ALLOW],
  );
  program.push([RET_K, 0, 0, RET_ALLOW]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
