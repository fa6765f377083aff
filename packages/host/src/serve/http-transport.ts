import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type JSONRPCMessage,
  type RequestId,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
  type WebStandardStreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/server';
import type { Principal } from '../types.js';
import { toWebRequest, writeWebResponse } from './node-web.js';

/**
 * The SDK transport of one 2025-11-25 session, noting whether the answer to its initialize request
 * was an error: a session whose handshake failed is ended rather than kept for a client that will
 * never use it.
 */
export class SessionTransport extends WebStandardStreamableHTTPServerTransport {
  #initId: RequestId | undefined;
  initFailed = false;

  constructor(options: WebStandardStreamableHTTPServerTransportOptions, initId: RequestId | undefined) {
    super(options);
    this.#initId = initId;
  }

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (
      this.#initId !== undefined &&
      'id' in message &&
      !('method' in message) &&
      message.id === this.#initId
    ) {
      this.#initId = undefined;
      if ('error' in message) this.initFailed = true;
    }
    return super.send(message, options);
  }

  /** Serves one HTTP exchange of the session (`body`: the POST's JSON, already read). */
  async serve(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    const response = await this.handleRequest(
      toWebRequest(req, res),
      body === undefined ? undefined : { parsedBody: body },
    );
    await writeWebResponse(res, response);
  }
}

/** What the session table keeps of a 2025-11-25 session. */
export interface Link {
  /** Who initialized the session: only they may use it. */
  readonly principal: Principal;
  readonly transport: SessionTransport;
  readonly dispose: () => void;
  readonly close: () => void;
}
