import type { JailSetting, SandboxMode } from '../config/sandbox.js';
import type { Walls } from '../jail/index.js';
import { executorPlacement, wallsOf } from './executor-spawn.js';

/** The walls a sandbox placed so stands behind. */
export function wallsOfPlacement(placement: {
  readonly mode: SandboxMode;
  readonly jail: JailSetting;
}): Walls {
  if (placement.mode === 'inline') {
    return {
      isolate: true,
      jail: {
        up: false,
        reason: "sandbox is 'inline': isolates run in the host process, behind one wall (the isolate)",
      },
    };
  }
  return wallsOf(executorPlacement(placement.jail));
}
