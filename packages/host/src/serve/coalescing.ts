import type { Writable } from 'node:stream';

/** A writable whose writes of one turn go out together, and that says when they have. */
export type CoalescingWritable = Writable & {
  /** Runs `done` once what was written so far has been handed to the stream (at once if it has). */
  afterWrite(done: () => void): void;
};

/**
 * `out` with the messages written in one turn of the microtask queue sent in one write: the
 * SDK's transport writes each message on its own, and with calls in flight the replies of one
 * read from the executor come out together (a write syscall each was over one per call at 64
 * calls in flight; with this, one per five). Corked at the first write, uncorked in the next
 * tick, after the promise jobs that write the other replies; a message is never held past that.
 */
export function coalescing(out: Writable): CoalescingWritable {
  let corked = false;
  let after: (() => void)[] = [];
  const uncork = () => {
    corked = false;
    out.uncork();
    const done = after;
    after = [];
    for (const each of done) each();
  };
  const write = (...args: Parameters<Writable['write']>): boolean => {
    if (!corked) {
      corked = true;
      out.cork();
      process.nextTick(uncork);
    }
    return out.write(...args);
  };
  const afterWrite = (done: () => void) => {
    if (corked) after.push(done);
    else done();
  };
  // The SDK's transport listens once for 'error' around every write, and once for 'drain' after
  // each write past the stream's buffer. With a few hundred answers in one turn, that was a few
  // hundred listeners on stdout: Node printed a MaxListenersExceededWarning on serve's stderr
  // (again each time the list grew back from one), and each removal searched the whole list.
  // Those listeners wait here instead, in a set per event, behind one listener on the stream while
  // any waits. As with Node's `once`: each is removed just before it runs, one that throws leaves
  // the later ones waiting, and one added while the event is dispatched waits for the next. Unlike
  // it: a listener added twice runs once, and the stream's `listeners()` does not list them.
  const waiting: Record<WaitedEvent, Set<Listener>> = { drain: new Set(), error: new Set() };
  const dispatchers: Record<WaitedEvent, Listener> = {
    drain: (...args) => dispatch('drain', args),
    error: (...args) => dispatch('error', args),
  };
  const listening: Record<WaitedEvent, boolean> = { drain: false, error: false };
  const dispatch = (event: WaitedEvent, args: unknown[]) => {
    const set = waiting[event];
    try {
      for (const each of [...set]) {
        set.delete(each);
        each(...args);
      }
    } finally {
      if (set.size === 0) stopListening(event);
    }
  };
  const stopListening = (event: WaitedEvent) => {
    if (!listening[event]) return;
    listening[event] = false;
    out.off(event, dispatchers[event]);
  };
  const once = (event: string | symbol, listener: Listener): CoalescingWritable => {
    if (event !== 'drain' && event !== 'error') {
      out.once(event, listener);
      return proxy;
    }
    waiting[event].add(listener);
    if (!listening[event]) {
      listening[event] = true;
      out.on(event, dispatchers[event]);
    }
    return proxy;
  };
  const off = (event: string | symbol, listener: Listener): CoalescingWritable => {
    if ((event === 'drain' || event === 'error') && waiting[event].delete(listener)) {
      if (waiting[event].size === 0) stopListening(event);
      return proxy;
    }
    out.off(event, listener);
    return proxy;
  };
  const removeAllListeners = (event?: string | symbol): CoalescingWritable => {
    for (const each of ['drain', 'error'] as const) {
      if (event !== undefined && event !== each) continue;
      waiting[each].clear();
      stopListening(each);
    }
    out.removeAllListeners(event);
    return proxy;
  };
  const proxy = new Proxy(out, {
    get(target, property) {
      if (property === 'write') return write;
      if (property === 'afterWrite') return afterWrite;
      if (property === 'once') return once;
      if (property === 'off' || property === 'removeListener') return off;
      if (property === 'removeAllListeners') return removeAllListeners;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as CoalescingWritable;
  return proxy;
}

type Listener = (...args: unknown[]) => void;
/** The events the SDK's transport waits for once per message. */
type WaitedEvent = 'drain' | 'error';
