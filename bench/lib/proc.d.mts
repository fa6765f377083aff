/** Whether this system has /proc to read. */
export declare const HAS_PROC: boolean;
/** `{ppid, state, cpuUs}` of a process (utime+stime), or undefined when it is gone or unreadable. */
export declare function procStat(pid: number): { state: string; ppid: number; cpuUs: number } | undefined;
/** Every live process's children, by parent pid (zombies left out). */
export declare function childrenByParent(): Map<number, number[]>;
/** The live descendants of `roots` (all generations, or children only unless `deep`), roots not included. */
export declare function familyOf(
  roots: readonly number[],
  deep?: boolean,
  children?: Map<number, number[]>,
): number[];
/** Every live descendant of `pid`. */
export declare function descendantsOf(pid: number): number[];
/** The live children of `pid`. */
export declare function childrenOf(pid: number): number[];
/** `roots` and all their live descendants. */
export declare function withDescendants(roots: readonly number[], children?: Map<number, number[]>): number[];
/** Whether process `pid` starts or runs the host's executor (its command line names the entry). */
export declare function isExecutorProcess(pid: number): boolean;
/** CPU time `pid` has used (user + system), µs, or 0 once it is gone. */
export declare function cpuMicros(pid: number): number;
/** The CPUs this process may run on (its cpuset); none off Linux. */
export declare function allowedCpus(): number[];
