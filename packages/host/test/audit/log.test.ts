import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditFile } from '../../src/audit/log.js';
import { readTrail } from '../../src/audit/read.js';
import { createRedactor } from '../../src/audit/redact.js';
import { type AuditCall, AuditTrail } from '../../src/audit/trail.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'toolhost-audit-log-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const record = (n: number) => ({
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  type: 'call',
  tool: `t${n}`,
  pad: 'x'.repeat(60),
});

describe('the trail file', () => {
  it('rotates at maxBytes, keeps `keep` older files, drops the oldest, and loses no line of the kept ones', async () => {
    const file = new AuditFile({ dir, name: 'host-1', maxBytes: 400, keep: 2 });
    for (let n = 0; n < 20; n++) {
      file.append(record(n));
      if (n % 3 === 0) file.flush();
    }
    file.close();
    const names = (await readdir(dir)).sort();
    expect(names).toEqual(['host-1.1.jsonl', 'host-1.2.jsonl', 'host-1.jsonl']);
    for (const name of names) {
      const text = await readFile(path.join(dir, name), 'utf8');
      expect(Buffer.byteLength(text), name).toBeLessThanOrEqual(400);
      expect(text.endsWith('\n')).toBe(true);
    }
    // What is kept is the newest records, in order, with no gap.
    const { records, skipped } = await readTrail(dir);
    expect(skipped).toBe(0);
    const tools = records.map((r) => r.tool);
    expect(tools.at(-1)).toBe('t19');
    const first = Number(tools[0]?.slice(1));
    expect(tools).toEqual(Array.from({ length: 20 - first }, (_, i) => `t${first + i}`));
  });

  it('rotates before a batch whose first line would take a full file past maxBytes', async () => {
    const file = new AuditFile({ dir, name: 'host-1', maxBytes: 400, keep: 3 });
    for (let n = 0; n < 8; n++) {
      file.append(record(n));
      file.flush();
    }
    file.close();
    for (const name of await readdir(dir)) {
      const text = await readFile(path.join(dir, name), 'utf8');
      expect(Buffer.byteLength(text), name).toBeLessThanOrEqual(400);
    }
    expect((await readTrail(dir)).records.map((r) => r.tool)).toEqual(
      Array.from({ length: 8 }, (_, i) => `t${i}`),
    );
  });

  it('appends to the file a restarted server finds, and reads a line cut short as not a record', async () => {
    const one = new AuditFile({ dir, name: 'host-1' });
    one.append(record(1));
    one.close();
    const two = new AuditFile({ dir, name: 'host-1' });
    two.append(record(2));
    two.close();
    await (await import('node:fs/promises')).appendFile(path.join(dir, 'host-1.jsonl'), '{"time":"2026');
    const { records, skipped } = await readTrail(dir);
    expect(records.map((r) => r.tool)).toEqual(['t1', 't2']);
    expect(skipped).toBe(1);
  });
});

describe('the batch', () => {
  afterEach(() => vi.useRealTimers());

  it('is written flushMs after its first line, off the call that appended it, and at once when large', async () => {
    vi.useFakeTimers();
    const file = new AuditFile({ dir, name: 'host-1', flushMs: 50 });
    const lines = async () =>
      (await readFile(file.file, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '').length;
    file.append(record(1));
    file.append(record(2));
    expect(await lines()).toBe(0);
    vi.advanceTimersByTime(49);
    expect(await lines()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(await lines()).toBe(2);
    // 64 KiB gathered: written by the append that filled it, whatever the timer.
    for (let n = 0; n < 1000; n++) file.append(record(n));
    expect(await lines()).toBeGreaterThan(2);
    file.close();
    expect(await lines()).toBe(1002);
  });

  it('makes a line queued with appendLater when its batch is written, in order, and skips one that fails', async () => {
    const file = new AuditFile({ dir, name: 'host-1', flushMs: 50 });
    const made: number[] = [];
    file.append(record(1));
    file.appendLater(() => {
      made.push(2);
      return JSON.stringify(record(2));
    }, 100);
    file.appendLater(() => {
      throw new Error('a bug in a record');
    }, 100);
    file.append(record(3));
    expect(made).toEqual([]);
    file.flush();
    expect(made).toEqual([2]);
    const text = await readFile(file.file, 'utf8');
    expect(text.split('\n').map((l) => (l === '' ? '' : (JSON.parse(l) as { tool: string }).tool))).toEqual([
      't1',
      't2',
      't3',
      '',
    ]);
    file.close();
  });
});

describe('a call record', () => {
  afterEach(() => vi.useRealTimers());

  const call = (input: unknown): AuditCall => ({
    principal: 'token:default',
    client: 'client-with-s3cr3t-value',
    session: 's1',
    hostSession: 'h1',
    requestId: '7',
    tool: 'echo',
    input,
    policy: 'allowed',
    status: 'ok',
    durationMs: 1.23456,
  });

  it('holds what the call was when recorded, though it is made when its batch is written', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1, 12, 0, 0));
    const file = new AuditFile({ dir, name: 'host-1', flushMs: 60_000 });
    const redactor = createRedactor(['s3cr3t-value']);
    let asked = 0;
    const trail = new AuditTrail(file, () => {
      asked += 1;
      return redactor;
    });
    const clean = { text: 'hello', list: [1, 2] };
    const secret = { text: 'x s3cr3t-value y', password: 'hunter2' };
    trail.call(call(clean));
    trail.call(call(secret));
    // Changed after the call: the record keeps what it was.
    clean.text = 'changed';
    clean.list.push(3);
    secret.text = 'changed too';
    vi.setSystemTime(Date.UTC(2026, 0, 1, 12, 0, 30));
    trail.flush();
    expect(asked).toBe(2);
    const records = (await readFile(file.file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toEqual([
      expect.objectContaining({
        time: '2026-01-01T12:00:00.000Z',
        client: 'client-with-[redacted]',
        input: { text: 'hello', list: [1, 2] },
        inputHash: redactor.hash({ text: 'hello', list: [1, 2] }),
        durationMs: 1.235,
      }),
      expect.objectContaining({
        input: { text: 'x [redacted] y', password: '[redacted]' },
        inputHash: redactor.hash({ text: 'x s3cr3t-value y', password: 'hunter2' }),
      }),
    ]);
    trail.close();
  });
});

describe('redaction', () => {
  it('cuts secrets out of every string and key, hides credential-like keys, and hashes without the secrets', () => {
    const redactor = createRedactor(['s3cr3t-value', 'abc']);
    expect(
      redactor.redact({ note: 'x s3cr3t-value y', nested: [{ 's3cr3t-value': 1 }], apiKey: 'plain', n: 3 }),
    ).toEqual({ note: 'x [redacted] y', nested: [{ '[redacted]': 1 }], apiKey: '[redacted]', n: 3 });
    // A value shorter than 4 characters is not a secret to cut (it would match everywhere).
    expect(redactor.redact('abc')).toBe('abc');
    expect(redactor.hash({ t: 'a s3cr3t-value' })).toBe(redactor.hash({ t: 'a [redacted]' }));
    expect(redactor.hash({ t: 'a' })).not.toBe(redactor.hash({ t: 'b' }));
  });

  it('prepares a record input (hash and redacted JSON, serialized once) exactly as redact and hash give them', () => {
    const redactor = createRedactor(['s3cr3t-value']);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const inputs: unknown[] = [
      { text: 'hello', n: 1, list: [1, 'two', null, true], nested: { a: { b: 'c' } } },
      { note: 'x s3cr3t-value y' },
      { 's3cr3t-value': 1 },
      { Authorization: 'Bearer abc', ok: 'yes' },
      { inner: [{ password: 'hunter2' }] },
      JSON.parse('{"__proto__": {"q": 1}, "x": 1}'),
      deep,
      { when: new Date(0) },
      'plain text',
      'text with s3cr3t-value',
      42,
      null,
      [],
      {},
    ];
    for (const input of inputs) {
      const expected = { hash: redactor.hash(input), json: JSON.stringify(redactor.redact(input)) };
      expect(redactor.prepare(input), JSON.stringify(input)?.slice(0, 60)).toEqual(expected);
      // Taken now, finished later (when the record's batch is written): the same.
      const captured = redactor.capture(input);
      expect(captured.finish(), JSON.stringify(input)?.slice(0, 60)).toEqual(expected);
      expect(captured.chars).toBe(expected.json.length);
    }
  });
});
