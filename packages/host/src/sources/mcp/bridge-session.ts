/** A bridge link's live connection (bridge-link.ts): the SDK client over one channel, its tool list, its close. */
import type { Client, Tool } from '@modelcontextprotocol/client';
import type { Channel } from './bridge-channel.js';

/** A live connection: the SDK client over one transport. */
export interface Session {
  readonly client: Client;
  readonly channel: Channel;
}

/** Pages of `tools/list` past this many are not read: a server that never stops paging is broken. */
const MAX_PAGES = 100;

export async function listTools(client: Client, timeout: number): Promise<Tool[]> {
  if (client.getServerCapabilities()?.tools === undefined) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

/** Closes a session, swallowing errors: the stdio transport ends stdin, then SIGTERM, then SIGKILL. */
export async function closeSession(session: Session): Promise<void> {
  try {
    await session.client.close();
  } catch {
    // Already closed or never connected: nothing left to release.
  }
  try {
    await session.channel.transport.close();
  } catch {
    // As above.
  }
}
