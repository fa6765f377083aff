#!/usr/bin/env node
// The README's agent loop in plain JavaScript, runnable as is on Node 24:
//
//   ANTHROPIC_API_KEY=... node examples/anthropic-agent.mjs "What is 2 + 40?"
//
// It serves the tools of the project in the current folder (built-ins, ./plugins, the
// toolhost.config.json there) plus one custom tool, `add`, to Claude through the official SDK, and
// prints the final answer. The SDK honours ANTHROPIC_BASE_URL, which is how the test runs it
// against a fake Messages API (test/examples.test.ts).
import Anthropic from '@anthropic-ai/sdk';
import { createHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

const question = process.argv[2] ?? 'What is 2 + 40?';

const host = await createHost({
  root: process.cwd(),
  customTools: [
    defineTool({
      name: 'add',
      description: 'Adds two numbers',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    }),
  ],
});

try {
  const client = new Anthropic();
  const session = host.session();
  /** @type {Anthropic.MessageParam[]} */
  const messages = [{ role: 'user', content: question }];
  for (let turn = 0; turn < 20; turn += 1) {
    const reply = await client.messages.create({
      model: process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-6',
      max_tokens: 1024,
      system: `You are a helpful assistant.\n${session.systemPromptSection()}`,
      tools: session.tools('anthropic'),
      messages,
    });
    messages.push({ role: 'assistant', content: reply.content });
    if (reply.stop_reason !== 'tool_use') {
      for (const block of reply.content) if (block.type === 'text') console.log(block.text);
      break;
    }
    for (const block of reply.content) {
      if (block.type === 'tool_use') console.error(`-> ${block.name} ${JSON.stringify(block.input)}`);
    }
    messages.push({ role: 'user', content: await session.dispatchAll(reply.content) });
  }
} finally {
  await host.close();
}
