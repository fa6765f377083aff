import { defineTool } from '@toolhost/plugin-sdk';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { planRegistry } from '../../src/core/filter/plan.js';
import { ReloadPipeline } from '../../src/host/pipeline.js';
import type { HostChange } from '../../src/host/types.js';
import { tempProject } from '../config/helpers.js';

// The real planner, counted: a swap must plan the new Map once, never the one in force again.
vi.mock('../../src/core/filter/plan.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/filter/plan.js')>();
  return { ...real, planRegistry: vi.fn(real.planRegistry) };
});

const project = tempProject();

const toolNamed = (name: string) =>
  defineTool({ name, description: `the ${name} tool`, input: z.object({}), execute: () => name });

/** The next change whose cause is `cause`. */
function nextChange(host: { onChange(l: (c: HostChange) => void): () => void }, cause: string) {
  return new Promise<HostChange>((resolve) => {
    const stop = host.onChange((change) => {
      if (change.cause !== cause) return;
      stop();
      resolve(change);
    });
  });
}

describe('the reload pipeline', () => {
  it('swaps a tool added while a reload runs in after that reload, never into a Map built mid-refresh', async () => {
    const host = await project.start();
    const causes: string[] = [];
    host.onChange((change) => causes.push(change.cause));
    const version = host.version;
    const added = nextChange(host, 'api');
    const reloaded = host.reload();
    host.addTool(toolNamed('late'));
    // The reload holds the pipeline: the tool waits its turn instead of a swap beside the run.
    expect(host.version).toBe(version);
    await reloaded;
    await added;
    expect(causes).toEqual(['reload', 'api']);
    expect(host.plan().visible.map((entry) => entry.descriptor.name)).toContain('late');
  });

  it('adds a tool at once when nothing runs (the API stays synchronous)', async () => {
    const host = await project.start();
    const version = host.version;
    host.addTool(toolNamed('now'));
    expect(host.version).toBe(version + 1);
    expect(host.plan().visible.map((entry) => entry.descriptor.name)).toContain('now');
  });

  it('plans each new Map once and keeps the plan in force for the next diff', async () => {
    const host = await project.start();
    const planned = vi.mocked(planRegistry);
    const before = planned.mock.calls.length;
    host.addTool(toolNamed('one'));
    host.addTool(toolNamed('two'));
    expect(host.plan().visible.map((entry) => entry.descriptor.name)).toEqual(
      expect.arrayContaining(['one', 'two']),
    );
    expect(planned.mock.calls.length - before).toBe(2);
  });

  it('has one way into a swap: run()', () => {
    const ways = Object.getOwnPropertyNames(ReloadPipeline.prototype).filter((name) =>
      /rebuild|swap|inturn/i.test(name),
    );
    expect(ways).toEqual([]);
  });
});
