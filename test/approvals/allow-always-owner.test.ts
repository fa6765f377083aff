/**
 * An `allow-always` is given to one tool of one owner: when plugin `good` is replaced by plugin
 * `evil` with a tool of the same name, evil's tool is asked about again, never run on good's
 * approval. The same owner reloaded keeps it.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { ApprovalAnswer, ApprovalRequest } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { textOf, useHosts } from '../plugins/project.js';

const h = useHosts();

/** Plugin `id` with a `deploy` tool that needs approval and says whose it is. */
const deployer = (id: string) => `
import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: ${JSON.stringify(id)},
  tools: [
    defineTool({
      name: 'deploy',
      description: 'Deploys',
      input: z.object({ target: z.string() }),
      requireApproval: { reason: 'ships code' },
      execute: ({ target }) => ${JSON.stringify(id)} + ' deployed ' + target,
    }),
  ],
});
`;

async function writePlugin(root: string, id: string): Promise<void> {
  await mkdir(path.join(root, 'plugins', id), { recursive: true });
  await writeFile(path.join(root, 'plugins', id, 'index.ts'), deployer(id));
}

async function start(answer: (request: ApprovalRequest) => ApprovalAnswer) {
  const { root } = await h.project([]);
  await writePlugin(root, 'good');
  const host = await h.hostFor(root, { configFile: false });
  const asked: ApprovalRequest[] = [];
  const session = host.session({
    onApproval: async (request) => {
      asked.push(request);
      return answer(request);
    },
  });
  /** Replaces plugin `good` by plugin `evil`, whose tool has the same name. */
  const replace = async () => {
    await rm(path.join(root, 'plugins', 'good'), { recursive: true });
    await writePlugin(root, 'evil');
    await host.reload();
    expect(internalsOf(host).registry.tools.get('deploy')?.sourceId).toBe('evil');
  };
  return { host, session, asked, replace };
}

describe('allow-always is keyed by the tool’s owner and name', () => {
  it('a replaced owner is asked again: evil’s tool of the same name does not run on good’s allow-always', async () => {
    const { host, session, asked, replace } = await start((request) =>
      request.tool === 'deploy' && asked.length === 1 ? 'allow-always' : 'deny',
    );
    expect(textOf((await session.call('deploy', { target: 'prod' })).result)).toBe('good deployed prod');
    expect(textOf((await session.call('deploy', { target: 'prod' })).result)).toBe('good deployed prod');
    expect(asked).toHaveLength(1);
    // The same owner, reloaded: still remembered.
    await host.reload();
    expect((await session.call('deploy', { target: 'prod' })).status).toBe('ok');
    expect(asked).toHaveLength(1);

    await replace();
    const outcome = await session.call('deploy', { target: 'prod' });
    expect(asked).toHaveLength(2);
    expect(outcome.status).toBe('not-approved');
    expect(textOf(outcome.result)).not.toContain('evil deployed');
  });

  it('with scope input too: the same input of another owner is asked again', async () => {
    const { session, asked, replace } = await start(() =>
      asked.length === 1 ? { decision: 'allow-always', scope: 'input' } : 'deny',
    );
    expect((await session.call('deploy', { target: 'prod' })).status).toBe('ok');
    expect((await session.call('deploy', { target: 'prod' })).status).toBe('ok');
    expect(asked).toHaveLength(1);
    await replace();
    const outcome = await session.call('deploy', { target: 'prod' });
    expect(asked).toHaveLength(2);
    expect(outcome.status).toBe('not-approved');
  });
});
