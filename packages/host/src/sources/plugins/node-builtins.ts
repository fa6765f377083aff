import { builtinModules } from 'node:module';
import type * as esbuild from 'esbuild';

/** What to use instead of a Node built-in inside the sandbox. */
const capabilityFor: Record<string, string> = {
  fs: 'use ctx.fs (declare permissions.fs; config grants it at plugins.<id>.grants.fs)',
  'fs/promises': 'use ctx.fs (declare permissions.fs; config grants it at plugins.<id>.grants.fs)',
  http: 'use ctx.fetch (declare permissions.net; config grants it at plugins.<id>.grants.net)',
  https: 'use ctx.fetch (declare permissions.net; config grants it at plugins.<id>.grants.net)',
  net: 'use ctx.fetch (declare permissions.net; config grants it at plugins.<id>.grants.net)',
  process: 'use ctx.env.get (declare permissions.env; config grants it at plugins.<id>.grants.env)',
  os: 'use ctx.env.get for configuration (declare permissions.env)',
  timers: 'use ctx.sleep',
  'timers/promises': 'use ctx.sleep',
  child_process: 'plugins cannot start processes',
  worker_threads: 'plugins cannot start threads',
};

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Refuses Node built-ins with a message naming the capability to use instead. */
export const nodeBuiltinsPlugin: esbuild.Plugin = {
  name: 'toolhost-no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!builtins.has(args.path)) return undefined;
      const bare = args.path.replace(/^node:/, '');
      const instead = capabilityFor[bare] ?? 'the sandbox has no Node APIs';
      return { errors: [{ text: `Node built-in "${args.path}" is not available to plugins: ${instead}` }] };
    });
  },
};
