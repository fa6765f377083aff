import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { StartedMarkFile, StartedMarkWriter } from '../../src/sandbox/started-mark.js';

describe('the count of requests an executor has read', () => {
  it('is 0 until the executor writes it, then the running total of what it added', () => {
    const file = StartedMarkFile.open();
    try {
      expect(file.read()).toBe(0);
      const writer = new StartedMarkWriter(file.fd);
      writer.add(3);
      writer.add(0);
      writer.add(2);
      expect(file.read()).toBe(5);
    } finally {
      file.close();
    }
  });

  it('holds counts beyond 32 bits exactly', () => {
    const file = StartedMarkFile.open();
    try {
      const writer = new StartedMarkWriter(file.fd);
      writer.add(2 ** 32);
      writer.add(1);
      expect(file.read()).toBe(2 ** 32 + 1);
    } finally {
      file.close();
    }
  });

  it('leaves no file behind in the temp folder', () => {
    const before = readdirSync(tmpdir()).filter((name) =>
      name.startsWith(`toolhost-started-${process.pid}-`),
    );
    const file = StartedMarkFile.open();
    const during = readdirSync(tmpdir()).filter((name) =>
      name.startsWith(`toolhost-started-${process.pid}-`),
    );
    file.close();
    expect(during).toEqual(before);
  });
});
