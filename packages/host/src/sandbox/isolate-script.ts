import * as esbuild from 'esbuild';
import { PACKAGE_ROOT } from '../util/package.js';

/** What every script built for an isolate shares: one IIFE, no Node, the language V8 runs there. */
export const ISOLATE_SCRIPT_OPTIONS: esbuild.BuildOptions = {
  bundle: true,
  format: 'iife',
  platform: 'neutral',
  target: 'es2022',
  mainFields: ['module', 'main'],
  conditions: ['import', 'default'],
  write: false,
  metafile: true,
  logLevel: 'silent',
  legalComments: 'none',
  charset: 'utf8',
};

let runtimeScript: Promise<string> | undefined;

/**
 * The in-isolate half of the sandbox (`@toolhost/plugin-sdk/runtime`) as one script, built once per
 * process from the host's own SDK. It is trusted host code: it is built from the host package, not
 * under a plugin's confinement.
 */
export function loadRuntimeScript(): Promise<string> {
  runtimeScript ??= esbuild
    .build({
      ...ISOLATE_SCRIPT_OPTIONS,
      absWorkingDir: PACKAGE_ROOT,
      stdin: {
        contents: `import '@toolhost/plugin-sdk/runtime';\n`,
        resolveDir: PACKAGE_ROOT,
        sourcefile: '<toolhost-runtime>',
        loader: 'js',
      },
    })
    .then((result) => {
      const code = result.outputFiles?.[0]?.text;
      if (code === undefined) {
        throw new Error(`cannot build the sandbox runtime: ${result.errors.map((e) => e.text).join('; ')}`);
      }
      return code;
    });
  return runtimeScript;
}
