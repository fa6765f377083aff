import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldPath } from '../../src/workspace/confine.js';
import { fileLocks, KeyedLock } from '../../src/workspace/path-lock.js';
import { makeCtx, makeSandbox } from '../sources/builtin/helpers.js';

/** A promise and the function that settles it, to hold a lock open until the test says so. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('KeyedLock', () => {
  it('runs holders of one key one after the other, in arrival order', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    const first = gate();
    const a = lock.run('k', async () => {
      events.push('a start');
      await first.opened;
      events.push('a end');
    });
    const b = lock.run('k', async () => {
      events.push('b start');
    });
    const c = lock.run('k', async () => {
      events.push('c start');
    });
    await Promise.resolve();
    expect(events).toEqual(['a start']);
    first.open();
    await Promise.all([a, b, c]);
    expect(events).toEqual(['a start', 'a end', 'b start', 'c start']);
  });

  it('runs holders of different keys at the same time', async () => {
    const lock = new KeyedLock();
    const held = gate();
    const started: string[] = [];
    const a = lock.run('a', async () => {
      started.push('a');
      await held.opened;
    });
    const b = lock.run('b', async () => {
      started.push('b');
    });
    await b;
    expect(started).toEqual(['a', 'b']);
    held.open();
    await a;
  });

  it('a holder that throws passes the lock on and its caller gets the error', async () => {
    const lock = new KeyedLock();
    const failing = lock.run('k', async () => {
      throw new Error('boom');
    });
    const next = lock.run('k', async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ran');
  });

  it('removes each entry once idle: no key outlives its last holder', async () => {
    const lock = new KeyedLock();
    const held = gate();
    const runs = Array.from({ length: 200 }, (_, i) =>
      lock.run(`key ${i % 10}`, async () => {
        if (i === 0) await held.opened;
        return i;
      }),
    );
    expect(lock.size).toBe(10);
    held.open();
    expect((await Promise.all(runs)).length).toBe(200);
    expect(lock.size).toBe(0);
  });
});

describe('the lock of the file tools', () => {
  it('holds no entry once the calls on a file are done, whether they succeeded or failed', async () => {
    const sb = await makeSandbox();
    try {
      await fs.writeFile(path.join(sb.root, 'f.txt'), 'a b c');
      const calls = [
        sb.call('edit', { path: 'f.txt', oldText: 'a', newText: 'A' }),
        sb.call('edit', { path: 'f.txt', oldText: 'b', newText: 'B' }),
        sb.call('edit', { path: 'f.txt', oldText: 'missing', newText: 'x' }),
        sb.call('write', { path: 'g.txt', content: 'g' }),
      ];
      const settled = await Promise.allSettled(calls);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(fileLocks.size).toBe(0);
    } finally {
      await sb.cleanup();
    }
  });

  it('a call cancelled before its turn at a held lock does not write when the lock frees', async () => {
    const sb = await makeSandbox();
    try {
      const file = path.join(await fs.realpath(sb.root), 'f.txt');
      await fs.writeFile(file, 'before');
      const held = gate();
      const holder = fileLocks.run(foldPath(file), () => held.opened);
      const controller = new AbortController();
      const write = sb.call(
        'write',
        { path: 'f.txt', content: 'after' },
        {},
        makeCtx({ signal: controller.signal }),
      );
      controller.abort(new Error('cancelled while queued'));
      held.open();
      await holder;
      await expect(write).rejects.toThrow('cancelled while queued');
      expect(await fs.readFile(file, 'utf8')).toBe('before');
    } finally {
      await sb.cleanup();
    }
  });
});
