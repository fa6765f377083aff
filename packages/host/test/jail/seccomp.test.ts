import { describe, expect, it } from 'vitest';
import { DENIED_SYSCALLS, seccompProgram } from '../../src/jail/seccomp.js';

/** Runs a classic BPF seccomp program on one call, as the kernel would: its verdict. */
function verdict(program: Buffer, call: { arch: number; nr: number; arg0?: number }): number {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(call.nr >>> 0, 0);
  data.writeUInt32LE(call.arch >>> 0, 4);
  data.writeUInt32LE((call.arg0 ?? 0) >>> 0, 16);
  let acc = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unknown instruction ${code.toString(16)} at ${pc}`);
  }
  throw new Error('the program fell off its end');
}

const ALLOW = 0x7fff0000;
const KILL = 0x80000000;
const errno = (n: number) => 0x00050000 | n;
const X64 = 0xc000003e;
const ARM64 = 0xc00000b7;

describe('the jail seccomp filter', () => {
  const x64 = seccompProgram('x64') as Buffer;
  const arm64 = seccompProgram('arm64') as Buffer;

  it('lets ordinary calls through (read, write, mmap, futex, epoll_wait)', () => {
    for (const nr of [0, 1, 9, 202, 232]) expect(verdict(x64, { arch: X64, nr })).toBe(ALLOW);
    for (const nr of [63, 64, 222, 98]) expect(verdict(arm64, { arch: ARM64, nr })).toBe(ALLOW);
  });

  it('denies ptrace, namespaces, mounts, bpf, io_uring and the rest of its list with EPERM', () => {
    const x64Numbers = {
      ptrace: 101,
      unshare: 272,
      setns: 308,
      mount: 165,
      bpf: 321,
      io_uring_setup: 425,
      keyctl: 250,
    };
    for (const [name, nr] of Object.entries(x64Numbers)) {
      expect(DENIED_SYSCALLS).toContain(name);
      expect(verdict(x64, { arch: X64, nr }), name).toBe(errno(1));
    }
    expect(verdict(arm64, { arch: ARM64, nr: 117 }), 'ptrace on arm64').toBe(errno(1));
    expect(verdict(arm64, { arch: ARM64, nr: 97 }), 'unshare on arm64').toBe(errno(1));
  });

  it('refuses clone with a namespace flag but not a thread or a fork; clone3 is ENOSYS', () => {
    const CLONE_THREAD_FLAGS = 0x3d0f00;
    expect(verdict(x64, { arch: X64, nr: 56, arg0: CLONE_THREAD_FLAGS })).toBe(ALLOW);
    expect(verdict(x64, { arch: X64, nr: 56, arg0: 0x11 })).toBe(ALLOW); // SIGCHLD: a fork
    expect(verdict(x64, { arch: X64, nr: 56, arg0: 0x10000000 | 0x11 })).toBe(errno(1)); // CLONE_NEWUSER
    expect(verdict(x64, { arch: X64, nr: 56, arg0: 0x40000000 })).toBe(errno(1)); // CLONE_NEWNET
    expect(verdict(x64, { arch: X64, nr: 435 })).toBe(errno(38));
  });

  it('allows only AF_UNIX sockets', () => {
    expect(verdict(x64, { arch: X64, nr: 41, arg0: 1 })).toBe(ALLOW);
    for (const family of [2, 10, 16, 17])
      expect(verdict(x64, { arch: X64, nr: 41, arg0: family })).toBe(errno(97));
    expect(verdict(arm64, { arch: ARM64, nr: 198, arg0: 2 })).toBe(errno(97));
  });

  it("a process tool's filter adds AF_INET and AF_INET6 (its namespace's loopback), and still refuses netlink and packet sockets", () => {
    for (const arch of ['x64', 'arm64'] as const) {
      const program = seccompProgram(arch, { inet: true }) as Buffer;
      const [audit, socket] = arch === 'x64' ? [X64, 41] : [ARM64, 198];
      for (const family of [1, 2, 10])
        expect(verdict(program, { arch: audit, nr: socket, arg0: family })).toBe(ALLOW);
      for (const family of [16, 17, 38])
        expect(verdict(program, { arch: audit, nr: socket, arg0: family })).toBe(errno(97));
      // The rest of the filter is the executor's.
      expect(verdict(program, { arch: audit, nr: arch === 'x64' ? 101 : 117 })).toBe(errno(1));
    }
  });

  it('kills a call made under another ABI (wrong architecture, x32 numbers)', () => {
    expect(verdict(x64, { arch: 0x40000003, nr: 0 })).toBe(KILL); // i386
    expect(verdict(x64, { arch: X64, nr: 0x40000000 | 101 })).toBe(KILL);
    expect(verdict(arm64, { arch: X64, nr: 0 })).toBe(KILL);
  });

  it('has no filter for an architecture it does not know', () => {
    expect(seccompProgram('riscv64')).toBeUndefined();
  });
});
