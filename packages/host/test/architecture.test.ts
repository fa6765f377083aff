import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The folder tree is the architecture diagram: these tests keep it true. Layers from the ground
 * up; a file may import its own folder and any folder on a lower layer, never one above (nor a
 * sibling on the same layer). ARCHITECTURE.md describes each layer.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['util'],
  ['config'],
  ['types.ts'],
  ['core'],
  ['core/search'],
  ['core/filter'],
  ['core/register'],
  ['core/wrap'],
  ['core/dispatch'],
  ['workspace'],
  ['jail'],
  ['sandbox'],
  ['capabilities'],
  ['sources'],
  ['sources/builtin', 'sources/mcp', 'sources/plugins', 'sources/skills', 'code-mode'],
  ['telemetry'],
  ['host', 'audit'],
  ['serve'],
  ['cli'],
  ['internal.ts', 'index.ts'],
];

const SRC = path.resolve(import.meta.dirname, '../src');
const IMPORT =
  /^\s*(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

/** The folder (or root file) a source file belongs to, as LAYERS names it. */
function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return file;
  const nested = `${parts[0]}/${parts[1]}`;
  if (parts.length > 2 && LAYERS.some((layer) => layer.includes(nested))) return nested;
  return parts[0] as string;
}

function layerOf(unit: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(unit));
  if (index < 0) throw new Error(`${unit} is in no layer of architecture.test.ts: place it`);
  return index;
}

/** Every relative import of every file under src/, resolved to a file under src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of filesUnder(SRC)) {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => {
      const spec = (m[1] ?? m[2]) as string;
      return path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts');
    });
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Longer files hold more than one duty; an exception says why on its first line. */
const MAX_LINES = 400;
const OVER = /^\/\/ Over 400 lines: \S/;

describe('the architecture of @toolhost/host', () => {
  const graph = importGraph();

  it('every import resolves to a file under src/', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => !graph.has(t)).map((t) => `${file} -> ${t}`),
    );
    expect(missing).toEqual([]);
  });

  it('has no import cycle, not even through types', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('arrows between folders only point down the layers', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = unitOf(file);
      for (const target of targets) {
        const to = unitOf(target);
        if (from === to) continue;
        if (layerOf(to) >= layerOf(from)) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('the pure heart stays pure: the filter and register duties touch no I/O', () => {
    const impure = [...graph.keys()]
      .filter(
        (file) =>
          file.startsWith('core/filter/') ||
          file.startsWith('core/register/') ||
          file.startsWith('core/search/') ||
          file === 'core/refs.ts',
      )
      .filter((file) => /from\s+['"]node:/.test(readFileSync(path.join(SRC, file), 'utf8')));
    expect(impure).toEqual([]);
  });

  it('no source file of either package is over 400 lines, unless its first line says why', () => {
    const packages = path.resolve(SRC, '../..');
    const long = ['host', 'plugin-sdk'].flatMap((name) => {
      const src = path.join(packages, name, 'src');
      return (readdirSync(src, { recursive: true }) as string[])
        .filter((file) => file.endsWith('.ts'))
        .map((file) => ({ file: `${name}/src/${file}`, text: readFileSync(path.join(src, file), 'utf8') }))
        .filter(({ text }) => text.split('\n').length - 1 > MAX_LINES && !OVER.test(text))
        .map(({ file, text }) => `${file}: ${text.split('\n').length - 1} lines`);
    });
    expect(long).toEqual([]);
  });
});
