/**
 * A plugin's own before-hook (run in its isolate) can ask for approval like a host hook: its ask
 * crosses the sandbox as a checked verdict and meets the same gate (one ask, block wins, the input
 * the person saw is the input that runs).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { ApprovalRequest } from '@toolhost/host';
import { describe, expect, it } from 'vitest';
import { textOf, useHosts } from '../plugins/project.js';

const h = useHosts();

/** A plugin whose hook asks before any transfer above 100 and rewrites the memo it shows. */
const BANK = `
import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: 'bank',
  tools: [
    defineTool({
      name: 'bank_transfer',
      description: 'Transfers money',
      input: z.object({ amount: z.number(), memo: z.string().optional() }),
      execute: ({ amount, memo }) => 'sent ' + amount + (memo === undefined ? '' : ' (' + memo + ')'),
    }),
  ],
  hooks: {
    beforeToolCall: (event) => {
      const input = event.input;
      if (input.amount <= 100) return undefined;
      return {
        requireApproval: { title: 'Transfer ' + input.amount, severity: 'critical' },
        input: { ...input, memo: 'large transfer' },
      };
    },
  },
});
`;

/** A plugin whose hook answers with an ask that breaks the rules (no title). */
const SLOPPY = BANK.replace("title: 'Transfer ' + input.amount, ", '')
  .replace(/'bank'/, "'sloppy'")
  .replace(/bank_transfer/g, 'sloppy_transfer');

async function hostWith(files: Record<string, string>) {
  const { root } = await h.project([]);
  for (const [id, source] of Object.entries(files)) {
    await mkdir(path.join(root, 'plugins', id));
    await writeFile(path.join(root, 'plugins', id, 'index.ts'), source);
  }
  return h.hostFor(root, { configFile: false });
}

describe("a plugin hook's requireApproval", () => {
  it('asks the session with its title and severity; the person sees the rewritten input that then runs', async () => {
    const host = await hostWith({ bank: BANK });
    const asked: ApprovalRequest[] = [];
    const session = host.session({
      onApproval: async (request) => {
        asked.push(request);
        return 'allow-once';
      },
    });

    const small = await session.call('bank_transfer', { amount: 5 });
    expect(textOf(small.result)).toBe('sent 5');
    expect(asked).toEqual([]);

    const large = await session.call('bank_transfer', { amount: 500 });
    expect(large.status).toBe('ok');
    expect(textOf(large.result)).toBe('sent 500 (large transfer)');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: 'bank_transfer',
      title: 'Transfer 500',
      severity: 'critical',
      source: 'hook',
      hook: 'plugin:bank',
      input: { amount: 500, memo: 'large transfer' },
    });
  });

  it('a deny from the person keeps the transfer from running', async () => {
    const host = await hostWith({ bank: BANK });
    const session = host.session({ onApproval: async () => ({ decision: 'deny', reason: 'not today' }) });
    const outcome = await session.call('bank_transfer', { amount: 500 });
    expect(outcome.status).toBe('not-approved');
    expect(textOf(outcome.result)).toContain('not today');
  });

  it('a malformed ask from the isolate is refused as the hook failing, naming the plugin', async () => {
    const host = await hostWith({ sloppy: SLOPPY });
    const asked: ApprovalRequest[] = [];
    const session = host.session({
      onApproval: async (request) => {
        asked.push(request);
        return 'allow-once';
      },
    });
    const outcome = await session.call('sloppy_transfer', { amount: 500 });
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome.result)).toContain('plugin:sloppy');
    expect(asked).toEqual([]);
  });
});
