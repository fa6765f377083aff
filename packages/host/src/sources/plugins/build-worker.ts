import { parentPort, workerData } from 'node:worker_threads';
import { PluginBuild } from './build-context.js';
import type { BuildWorkerData, FromBuildWorker, ToBuildWorker } from './build-ipc.js';
import { useSharedExports } from './shared-modules.js';

/**
 * The build worker: runs every plugin build of the host, each in its own esbuild context. It has
 * its own esbuild service, so that ending this thread also ends whatever esbuild is still doing
 * for it (see build-service.ts).
 */
const port = parentPort;
if (port === null) throw new Error('build-worker runs as a worker thread');
// The shared modules' export names, from the host (build-service.ts): importing them here would
// cost this fresh thread ≈ 100 ms of CPU before its first build.
const given = workerData as BuildWorkerData | undefined;
if (given?.sharedExports !== undefined) useSharedExports(given.sharedExports);

const builds = new Map<number, PluginBuild>();

port.on('message', (message: ToBuildWorker) => {
  if (message.t === 'dispose') {
    const build = builds.get(message.key);
    builds.delete(message.key);
    void build?.dispose();
    return;
  }
  let build = builds.get(message.key);
  if (build === undefined) {
    build = new PluginBuild(message.entry, message.root, message.limits);
    if (!message.once) builds.set(message.key, build);
  }
  const done = build;
  void done.rebuild().then(async (outcome) => {
    port.postMessage({ t: 'built', id: message.id, outcome } satisfies FromBuildWorker);
    if (message.once) await done.dispose();
  });
});
