/**
 * The README's TypeScript examples outside "Embedding it in an agent loop" (which
 * packages/host/test/public-api.test.ts compiles as one module against the public API and the
 * model SDKs): each ```ts block is a module of its own, as a reader would copy it, type-checked in
 * memory with the repository's compiler options.
 */
import * as path from 'node:path';
import ts from 'typescript';

const EMBEDDING = '## Embedding it in an agent loop';

export interface ReadmeModule {
  /** A virtual path beside README.md, named for the README line the block starts at. */
  readonly file: string;
  readonly source: string;
  /** The README line of the module's first line. */
  readonly firstLine: number;
}

/** Every ```ts block of `readme` outside the Embedding section. */
export function readmeModules(readme: string, root: string): ReadmeModule[] {
  const modules: ReadmeModule[] = [];
  let section = '';
  let block: { firstLine: number; lines: string[] } | undefined;
  readme.split('\n').forEach((line, i) => {
    if (block === undefined && line.startsWith('## ')) section = line;
    else if (block === undefined && line === '```ts') block = { firstLine: i + 2, lines: [] };
    else if (block !== undefined && line === '```') {
      if (section !== EMBEDDING) {
        const file = path.join(root, `README.md.line-${block.firstLine}.ts`);
        modules.push({ file, source: `${block.lines.join('\n')}\n`, firstLine: block.firstLine });
      }
      block = undefined;
    } else block?.lines.push(line);
  });
  return modules;
}

/** Type errors of `modules`, each as `README.md:LINE: message`. */
export function typeErrors(modules: readonly ReadmeModule[], root: string): string[] {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, { ...ts.sys, readDirectory: () => [] }, root);
  const options = { ...parsed.options, noEmit: true };
  const virtual = new Map(modules.map((m) => [m.file, m]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists(file);
  host.readFile = (file) => virtual.get(file)?.source ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) => {
    const module = virtual.get(file);
    return module === undefined
      ? getSourceFile(file, language, ...rest)
      : ts.createSourceFile(file, module.source, language, true);
  };
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  return modules.flatMap((module) => {
    const source = program.getSourceFile(module.file) as ts.SourceFile;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
      (d) => {
        const line = source.getLineAndCharacterOfPosition(d.start ?? 0).line;
        return `README.md:${module.firstLine + line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      },
    );
  });
}
