import { describe, expect, it } from 'vitest';
import { asCancellation, CancelSource, signalCancellation } from '../../src/util/cancel.js';

describe('CancelSource', () => {
  it('runs each listener once with the reason, and not one that was disposed', () => {
    const source = new CancelSource();
    const heard: unknown[] = [];
    source.onAbort((reason) => heard.push(['a', reason]));
    const dispose = source.onAbort((reason) => heard.push(['b', reason]));
    dispose();
    const reason = new Error('stop');
    source.stop(reason);
    source.stop(new Error('again'));
    expect(heard).toEqual([['a', reason]]);
    expect(source.aborted).toBe(true);
    expect(source.reason).toBe(reason);
  });

  it('keeps telling the other listeners when one throws', () => {
    const source = new CancelSource();
    const heard: string[] = [];
    source.onAbort(() => {
      throw new Error('faulty listener');
    });
    source.onAbort(() => heard.push('second'));
    source.stop('why');
    expect(heard).toEqual(['second']);
  });

  it('gives a signal that aborts with it, even one first asked for after it stopped', () => {
    const early = new CancelSource();
    const signal = early.signal;
    expect(signal.aborted).toBe(false);
    early.stop('early reason');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('early reason');

    const late = new CancelSource();
    late.stop('late reason');
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe('late reason');
  });

  it('does not call a listener added after it stopped, as a signal would not', () => {
    const source = new CancelSource();
    source.stop('done');
    let called = false;
    source.onAbort(() => {
      called = true;
    });
    expect(called).toBe(false);
  });
});

describe('the cancellation of an AbortSignal', () => {
  it('hears the abort through its listener until disposed, and is the same signal', () => {
    const controller = new AbortController();
    const cancel = asCancellation(controller.signal);
    expect(cancel.signal).toBe(controller.signal);
    const heard: unknown[] = [];
    const dispose = cancel.onAbort((reason) => heard.push(reason));
    const other = signalCancellation(controller.signal).onAbort((reason) => heard.push(['other', reason]));
    other();
    controller.abort('gone');
    dispose();
    expect(heard).toEqual(['gone']);
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe('gone');
  });

  it('passes a Cancellation through as it is', () => {
    const source = new CancelSource();
    expect(asCancellation(source)).toBe(source);
  });
});
