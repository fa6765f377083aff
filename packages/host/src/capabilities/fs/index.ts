/**
 * `ctx.fs` on the host: eight operations, each in its own file, each run on a fresh walk beneath
 * the project root (`workspace/beneath.ts`) whose folders stay held until it ends. Where a request
 * path may lead, and the denials, are `locate.ts`'s; what a failure says is `failure.ts`'s.
 */
import * as path from 'node:path';
import type { PluginPermissions } from '@toolhost/plugin-sdk';
import { beneath, type FolderMode } from '../../workspace/beneath.js';
import type { ControlGuard } from '../../workspace/control.js';
import type { CapabilityLimits, EffectivePermissions } from '../types.js';
import { appendFile } from './append-file.js';
import type { FsOperation } from './context.js';
import { fsFailure, subjectOf } from './failure.js';
import { createLocator } from './locate.js';
import { mkdir } from './mkdir.js';
import { readFile } from './read-file.js';
import { readdir } from './readdir.js';
import { rename } from './rename.js';
import { rm } from './rm.js';
import { stat } from './stat.js';
import { writeFile } from './write-file.js';

export interface FsCapabilityOptions {
  readonly pluginId: string;
  readonly root: string;
  readonly permissions: PluginPermissions;
  readonly effective: EffectivePermissions;
  readonly limits: CapabilityLimits;
  /** Refuses the host's control files, whatever the grants. */
  readonly control: ControlGuard;
  /** How folders are held; default descriptors wherever `/proc/self/fd` works. For tests. */
  readonly folderMode?: FolderMode;
}

export function createFsCapability(options: FsCapabilityOptions) {
  const root = path.resolve(options.root);
  const locator = createLocator(options);
  /** Runs one operation on its own walk; what escapes it unworded (opening the root) is worded here. */
  const run = <T>(capability: string, userPath: string, work: (op: FsOperation) => Promise<T>): Promise<T> =>
    beneath(root, options.folderMode, (walk) => work({ limits: options.limits, locator, walk })).catch(
      (error: unknown) => {
        throw fsFailure(capability, subjectOf(capability, userPath), userPath, error);
      },
    );

  return {
    readFile: (userPath: string) => run('fs.readFile', userPath, (op) => readFile(op, userPath)),
    writeFile: (userPath: string, data: string) =>
      run('fs.writeFile', userPath, (op) => writeFile(op, userPath, data)),
    appendFile: (userPath: string, data: string) =>
      run('fs.appendFile', userPath, (op) => appendFile(op, userPath, data)),
    readdir: (userPath: string) => run('fs.readdir', userPath, (op) => readdir(op, userPath)),
    stat: (userPath: string) => run('fs.stat', userPath, (op) => stat(op, userPath)),
    mkdir: (userPath: string, recursive: boolean) =>
      run('fs.mkdir', userPath, (op) => mkdir(op, userPath, recursive)),
    rm: (userPath: string, recursive: boolean, force: boolean) =>
      run('fs.rm', userPath, (op) => rm(op, userPath, recursive, force)),
    rename: (from: string, to: string) => run('fs.rename', from, (op) => rename(op, from, to)),
  };
}
