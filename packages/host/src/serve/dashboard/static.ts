/** The page's files, served from one folder: only files inside it, never a dot file, never `..`. */
import { readFile, realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own `dashboard/` folder: `../../../dashboard` of this module in src/ and in dist/ alike. */
export function defaultAssetsDir(): string {
  return fileURLToPath(new URL('../../../dashboard/', import.meta.url));
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Each part a plain name: letters, digits, `.`, `_`, `-`, not starting with a dot. */
const SAFE_PART = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export type Asset =
  | { readonly kind: 'file'; readonly body: Buffer; readonly type: string }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'missing'; readonly message: string };

/**
 * The file `name` (`app.js`, `lib/form.js`) of `dir`: refused when the name is not a plain
 * relative path or its type is not one the page uses, missing when no such file is there (a
 * symlink leading out of the folder counts as missing).
 */
export async function readAsset(dir: string, name: string): Promise<Asset> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    return { kind: 'refused', message: `bad file name "${name}": not valid percent-encoding` };
  }
  const parts = decoded.split('/');
  if (parts.some((part) => !SAFE_PART.test(part))) {
    return {
      kind: 'refused',
      message: `bad file name "${decoded}": only plain names inside the dashboard folder`,
    };
  }
  const type = TYPES[path.extname(decoded).toLowerCase()];
  if (type === undefined)
    return { kind: 'refused', message: `"${decoded}": not a type the dashboard serves` };
  const missing = { kind: 'missing', message: `no dashboard file "${decoded}"` } as const;
  try {
    const root = await realpath(dir);
    const file = await realpath(path.join(root, ...parts));
    if (!file.startsWith(root + path.sep) || !(await stat(file)).isFile()) return missing;
    return { kind: 'file', body: await readFile(file), type };
  } catch {
    return missing;
  }
}
