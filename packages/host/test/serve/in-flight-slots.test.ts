import { fstatSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { InFlightSlots, MAX_SLOTS, readInFlight, SLOT_SIZE } from '../../src/serve/in-flight-slots.js';
import { SharedTempFile } from '../../src/util/temp-file.js';

const files: SharedTempFile[] = [];
afterEach(() => {
  for (const file of files.splice(0)) file.close();
});

/** The supervisor's file and the serve process's writer on the same descriptor. */
function slots() {
  const file = new SharedTempFile('toolhost-in-flight');
  files.push(file);
  return { file, writer: new InFlightSlots(file.fd) };
}

describe('the in-flight slot file', () => {
  it('reads nothing from a fresh file', () => {
    expect(readInFlight(slots().file)).toEqual([]);
  });

  it('reads back a request written, and forgets it once answered', () => {
    const { file, writer } = slots();
    expect(writer.started(7, 'crasher')).toBe(true);
    expect(readInFlight(file)).toEqual([{ id: 7, pluginId: 'crasher' }]);
    writer.answered(7);
    expect(readInFlight(file)).toEqual([]);
  });

  it('names another plugin (or none) in a request’s slot while it stays in flight', () => {
    const { file, writer } = slots();
    writer.started(7, 'waiting-plugin');
    writer.started('s', undefined);
    writer.calling(7, undefined);
    expect(readInFlight(file)).toEqual([
      { id: 7, pluginId: undefined },
      { id: 's', pluginId: undefined },
    ]);
    writer.calling(7, 'runner');
    writer.calling('s', 'other');
    expect(readInFlight(file)).toEqual([
      { id: 7, pluginId: 'runner' },
      { id: 's', pluginId: 'other' },
    ]);
    // A request with no slot (answered, or never recorded) gets none.
    writer.answered(7);
    writer.calling(7, 'runner');
    writer.calling(8, 'runner');
    expect(readInFlight(file)).toEqual([{ id: 's', pluginId: 'other' }]);
  });

  it('keeps number ids exactly (zero, negative, fractional, large) and string ids with unicode', () => {
    const { file, writer } = slots();
    const ids = [0, -3, 1.5, 2 ** 53 - 1, '', 'req-1', '0', 'ünïcödé ✓ 日本語 🎉', '"quoted"\n\\'];
    for (const id of ids) writer.started(id, undefined);
    expect(readInFlight(file)).toEqual(ids.map((id) => ({ id, pluginId: undefined })));
  });

  it('tells a number id from the same digits as a string id', () => {
    const { file, writer } = slots();
    writer.started(1, 'a');
    writer.started('1', 'b');
    expect(readInFlight(file)).toEqual([
      { id: 1, pluginId: 'a' },
      { id: '1', pluginId: 'b' },
    ]);
    writer.answered('1');
    expect(readInFlight(file)).toEqual([{ id: 1, pluginId: 'a' }]);
  });

  it('records many requests at once, reuses answered slots before growing the file', () => {
    const { file, writer } = slots();
    for (let i = 0; i < 1_000; i++) expect(writer.started(i, `p${i % 3}`)).toBe(true);
    expect(readInFlight(file)).toHaveLength(1_000);
    for (let i = 0; i < 1_000; i += 2) writer.answered(i);
    const left = readInFlight(file);
    expect(left.map((r) => r.id)).toEqual(Array.from({ length: 500 }, (_, k) => 2 * k + 1));
    expect(left[0]).toEqual({ id: 1, pluginId: 'p1' });
    const size = fstatSync(file.fd).size;
    for (let i = 0; i < 500; i++) writer.started(`again-${i}`, undefined);
    expect(fstatSync(file.fd).size).toBe(size);
    expect(readInFlight(file)).toHaveLength(1_000);
  });

  it('does not record an id too long for a slot, and answering it is harmless', () => {
    const { file, writer } = slots();
    const long = 'x'.repeat(SLOT_SIZE);
    expect(writer.started(long, 'p')).toBe(false);
    writer.answered(long);
    writer.started(2, 'p');
    expect(readInFlight(file)).toEqual([{ id: 2, pluginId: 'p' }]);
  });

  it('records a request once even if its id comes twice, and a slot is answered once', () => {
    const { file, writer } = slots();
    writer.started(5, 'p');
    writer.started(5, 'p');
    writer.answered(5);
    writer.answered(5);
    expect(readInFlight(file)).toEqual([]);
  });

  it('stops recording after a failed write (no slot file on that fd) instead of failing every call', () => {
    const writer = new InFlightSlots(999_999); // no such descriptor
    expect(writer.started(1, 'p')).toBe(false);
    expect(writer.started(2, 'p')).toBe(false);
    writer.answered(1);
  });

  it('has room for a burst of requests far beyond what a client keeps in flight', () => {
    expect(MAX_SLOTS).toBeGreaterThanOrEqual(10_000);
  });
});
