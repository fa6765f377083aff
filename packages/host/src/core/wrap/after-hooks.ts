import type { ToolResult } from '@toolhost/plugin-sdk';
import type { AfterToolCallResult, RegisteredTool, ToolHooks } from '../../types.js';
import { runHook } from './before-hooks.js';
import type { WrapperContext } from './call-types.js';
import { failureText } from './errors.js';
import { errorResult } from './results.js';

/** Stage 3: the after-hooks, under the session lock; see `AfterToolCallResult` for the merge rules. */
export async function finalize(
  tool: RegisteredTool,
  toolUseId: string,
  input: unknown,
  first: ToolResult,
  durationMs: number,
  hooks: readonly ToolHooks[],
  ctx: WrapperContext,
  signal: AbortSignal,
): Promise<{ result: ToolResult; failed: boolean }> {
  const name = tool.descriptor.name;
  const { sessionId } = ctx;
  const { descriptor } = tool;
  return ctx.lock.run(async () => {
    let result = first;
    for (const hook of hooks) {
      let patch: AfterToolCallResult | void;
      try {
        const event = { sessionId, toolUseId, toolName: name, descriptor, input, result, durationMs, signal };
        patch = await runHook(hook, ctx, () => hook.afterToolCall?.(event));
      } catch (error) {
        return {
          failed: true,
          result: errorResult(
            `After-hook "${hook.name}" failed after tool "${name}" had already run (its effects happened): ${failureText(error, input)}`,
          ),
        };
      }
      if (patch === undefined || patch === null) continue;
      const next: {
        content: ToolResult['content'];
        isError?: boolean;
        structuredContent?: ToolResult['structuredContent'];
      } = {
        content: patch.content ?? result.content,
      };
      const isError = 'isError' in patch && patch.isError !== undefined ? patch.isError : result.isError;
      if (isError === true) next.isError = true;
      const structured = 'structuredContent' in patch ? patch.structuredContent : result.structuredContent;
      if (structured !== undefined) next.structuredContent = structured;
      result = next;
    }
    return { result, failed: false };
  });
}
