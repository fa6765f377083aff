import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * GHSA-864f-rcv7-6rh4 (isolated-vm ≤ 7.0.0): a type confusion in `ExternalCopy`'s transfer list let
 * code in an isolate corrupt host memory. Guest code reaches it only through an `ExternalCopy` (or
 * `ivm`) handed into the isolate, or through a transfer list the host builds from guest values.
 * The escape tests pin that plugin code sees no `ivm`, `ExternalCopy` or `Reference`
 * (test/security/escape.test.ts); this pins the host side: the sandbox never builds an
 * `ExternalCopy` from anything but its own prelude's code cache, and never passes a transfer list.
 */
const SANDBOX = path.resolve(import.meta.dirname, '../../src/sandbox');

function sources(dir: string): [string, string][] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): [string, string][] => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') ? [[path.relative(SANDBOX, file), readFileSync(file, 'utf8')]] : [];
  });
}

describe('the isolated-vm surface the host uses', () => {
  it('passes no transfer list, and makes no ExternalCopy, on any path a plugin can reach', () => {
    for (const [file, text] of sources(SANDBOX)) {
      expect(text, file).not.toMatch(/transferList|transferIn|transferOut|\btransfer\s*:/);
      expect(text, file).not.toMatch(/new\s+ivm\.ExternalCopy/);
      if (file !== 'prelude.ts') expect(text, file).not.toMatch(/ExternalCopy/);
    }
  });
});
