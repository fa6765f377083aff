import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/util/limiter.js';

/** A task that runs until its `finish` is called, recording when it started. */
function gated(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    task: async () => {
      log.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

describe('Limiter', () => {
  it('runs at most its slots at once and the rest in arrival order', async () => {
    const limiter = new Limiter(2);
    const started: string[] = [];
    const tasks = ['a', 'b', 'c', 'd'].map((name) => gated(started, name));
    const runs = tasks.map((t) => limiter.run(t.task));
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    expect([limiter.running, limiter.waiting]).toEqual([2, 2]);
    tasks[1]?.finish();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual(['a', 'b', 'c']);
    for (const t of tasks) t.finish();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
    expect([limiter.running, limiter.waiting]).toEqual([0, 0]);
  });

  it('a waiting task whose signal aborts leaves the queue, rejects with the given error, and takes no slot', async () => {
    const limiter = new Limiter(1);
    const started: string[] = [];
    const first = gated(started, 'first');
    const running = limiter.run(first.task);
    const controller = new AbortController();
    const left = limiter.run(
      gated(started, 'left').task,
      controller.signal,
      () => new Error('left the queue'),
    );
    const next = gated(started, 'next');
    const after = limiter.run(next.task);
    controller.abort();
    await expect(left).rejects.toThrow('left the queue');
    expect(limiter.waiting).toBe(1);
    first.finish();
    next.finish();
    expect(await Promise.all([running, after])).toEqual(['first', 'next']);
    expect(started).toEqual(['first', 'next']);
    expect(limiter.running).toBe(0);
  });

  it('an already aborted signal rejects at once when no slot is free, and runs the task when one is', async () => {
    const limiter = new Limiter(1);
    const aborted = AbortSignal.abort(new Error('gone'));
    expect(await limiter.run(async () => 'ran', aborted)).toBe('ran');
    const holder = gated([], 'holder');
    const held = limiter.run(holder.task);
    await expect(limiter.run(async () => 'never', aborted)).rejects.toThrow('gone');
    holder.finish();
    await held;
    expect(limiter.running).toBe(0);
  });
});
