import { messageOf } from '../util/errors.js';
import type { Frame } from './channel.js';
import type { FromExecutor, ToExecutor } from './ipc.js';
import {
  type Executor,
  handlersOf,
  type Pending,
  replyOf,
  SCRIPT_ENDED,
  type ScriptRun,
} from './process-requests.js';
import type { CodeToolReply } from './types.js';

/**
 * Handles one frame from executor `from`: its readiness and pongs, and for a request it was sent,
 * the reply, log lines, progress, a script's tool calls and capability requests. Only the process
 * a request was sent to may answer it or act for it.
 */
export function handleFrame(
  frame: Frame,
  from: Executor,
  pendings: Map<number, Pending>,
  sandbox: { readonly heard: () => void },
): void {
  if (!from.open) return;
  const message = frame.head as unknown as FromExecutor;
  if (message.t === 'ready') {
    from.ready = true;
    from.lastPong = Date.now();
    clearTimeout(from.startup);
    sandbox.heard();
    return;
  }
  if (message.t === 'pong') {
    from.lastPong = Date.now();
    return;
  }
  // Only the process a request was sent to may answer it or act for it.
  const pending = pendings.get(message.id);
  const mine = pending?.sentTo === from ? pending : undefined;
  switch (message.t) {
    case 'reply':
      if (mine === undefined) return;
      pendings.delete(message.id);
      mine.handlers?.end?.();
      mine.resolve(message.outcome ?? replyOf(frame.body));
      sandbox.heard();
      return;
    case 'log':
      handlersOf(mine)?.log(message.level, message.message, message.data);
      return;
    case 'progress':
      handlersOf(mine)?.progress(message.done, message.total, message.message);
      return;
    case 'tool':
      runScriptTool(mine?.script, message.name, frame.body).then((reply) => {
        if (from.ended === undefined && from.open) {
          from.writer.send(
            JSON.stringify({
              t: 'tool-reply',
              requestId: message.requestId,
              ok: reply.ok,
            } satisfies ToExecutor),
            reply.ok ? reply.json : reply.message,
          );
        }
      });
      return;
    case 'capability': {
      const handlers = handlersOf(mine);
      const reply =
        handlers !== undefined
          ? handlers.request(message.capability, frame.body)
          : Promise.resolve(
              JSON.stringify({
                ok: false,
                error: `ctx capability "${message.capability}" was used after its call ended`,
              }),
            );
      // Only to the process that asked: a restarted executor reuses request ids, and an answer
      // meant for a plugin of the old one must never resolve another plugin's request.
      void reply.then((text) => {
        if (from.ended === undefined && from.open) {
          from.writer.send(
            JSON.stringify({ t: 'capability-reply', requestId: message.requestId } satisfies ToExecutor),
            text,
          );
        }
      });
      return;
    }
  }
}

/**
 * A script's tool call, run here through its session's wrapper. Only while its run is in
 * flight, and no more calls than its limit (the executor's runner enforces it first).
 */
export function runScriptTool(
  script: ScriptRun | undefined,
  name: string,
  inputJson: string,
): Promise<CodeToolReply> {
  if (script === undefined || script.signal.aborted) return Promise.resolve(SCRIPT_ENDED);
  script.calls += 1;
  if (script.calls > script.options.limits.maxToolCalls) {
    return Promise.resolve({ ok: false, message: 'the script made more tool calls than its limit' });
  }
  return script.options.callTool(name, inputJson, script.signal).catch(
    (error: unknown): CodeToolReply => ({
      ok: false,
      message: `the call failed on the host: ${messageOf(error)}`,
    }),
  );
}
