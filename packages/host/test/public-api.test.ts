import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as publicApi from '@toolhost/host';
import * as internalApi from '@toolhost/host/internal';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The public API of `@toolhost/host`, pinned: every name here is something users build on, so a
 * rename is a breaking change. When one of these tests fails, the export list changed. If that was
 * deliberate, update the list below, and README.md's "Embedding it in an agent loop" section when
 * what users build on changed. If not, put the name back: `src/index.ts` exports what users build
 * on, `src/internal.ts` the rest (for this repository's tests and benchmarks).
 */
const PUBLIC_VALUES = [
  'ConfigError',
  'DEFAULT_LIMITS',
  'DEFAULT_SANDBOX_LIMITS',
  'ToolPlanContractError',
  'buildToolPlan',
  'configJsonSchema',
  'configSchema',
  'createHost',
  'evaluateAvailability',
  'isToolPlanContractError',
  'loadConfigFile',
  'parseConfig',
  'resultText',
  'serveHttp',
  'serveStdio',
  'toAnthropicTool',
  'toAnthropicToolResult',
  'toMcpTool',
  'toOpenAIFunctionCallOutput',
  'toOpenAIResponsesTool',
  'toOpenAITool',
  'toOpenAIToolMessage',
];

/** The type-only exports of `src/index.ts` (they leave no trace at run time). */
const PUBLIC_TYPES = [
  'ActivationResult',
  'AfterToolCallEvent',
  'AfterToolCallHook',
  'AfterToolCallResult',
  'AnthropicContentBlock',
  'AnthropicDeferredTool',
  'AnthropicImageMediaType',
  'AnthropicInputSchema',
  'AnthropicTool',
  'AnthropicToolEntry',
  'AnthropicToolResultBlock',
  'AnthropicToolResultContent',
  'AnthropicToolSearchTool',
  'AnthropicToolUseBlock',
  'ApprovalAnswer',
  'ApprovalChoice',
  'ApprovalDecision',
  'ApprovalEvent',
  'ApprovalHandler',
  'ApprovalQueue',
  'ApprovalRequest',
  'ApprovalSeverity',
  'ApprovalSource',
  'AvailabilityContext',
  'AvailabilityExpression',
  'BeforeToolCallEvent',
  'BeforeToolCallHook',
  'BeforeToolCallResult',
  'BuiltinToolsOptions',
  'CallLimits',
  'CallObserver',
  'CallOptions',
  'CallOutcome',
  'CallStatus',
  'ChangeListener',
  'ChannelCallContext',
  'ChannelOptions',
  'ChannelSender',
  'ChannelTool',
  'ChannelToolContext',
  'ChannelToolReturn',
  'ConfigIssue',
  'ConfigOutcome',
  'ControlFileAccess',
  'DashboardEvent',
  'DashboardOptions',
  'DeferralModes',
  'DeferredToolShapes',
  'DiagnosticLevel',
  'Disposer',
  'ErrorListener',
  'ExecOptions',
  'ExecutionContext',
  'GrepOptions',
  'HiddenReason',
  'HiddenToolPlanEntry',
  'HookApprovalRequest',
  'HostChange',
  'HostCodeOptions',
  'HostError',
  'HostMcpOptions',
  'HostOptions',
  'HttpAuthOptions',
  'InputAsker',
  'InputCheck',
  'InputIssue',
  'IsolateSettings',
  'IsolateStats',
  'JailMode',
  'McpHttpOptions',
  'McpHttpServer',
  'McpPrompt',
  'McpPromptArgument',
  'McpPromptContext',
  'McpServeOptions',
  'McpServerConfig',
  'McpServerJail',
  'McpServerState',
  'McpServerStatus',
  'McpSessionClose',
  'McpSessionCloseReason',
  'McpStdioOptions',
  'McpTool',
  'NewlyHidden',
  'OpenAIFunctionCall',
  'OpenAIFunctionCallOutput',
  'OpenAIFunctionTool',
  'OpenAIResponseItem',
  'OpenAIResponsesDeferredTool',
  'OpenAIResponsesTool',
  'OpenAIResponsesToolEntry',
  'OpenAIToolCall',
  'OpenAIToolMessage',
  'OpenAIToolSearchCall',
  'OpenAIToolSearchOutput',
  'OpenAIToolSearchTool',
  'OwnDeadline',
  'PendingApproval',
  'PluginGrants',
  'PluginReport',
  'PluginSettings',
  'PluginStatus',
  'PreludeStart',
  'Principal',
  'ProcessMemory',
  'RegisteredTool',
  'RegistryDiagnostic',
  'RegistryDiagnosticCode',
  'SandboxLimits',
  'SearchHit',
  'ServeToken',
  'Session',
  'SessionOptions',
  'Skill',
  'SkillArgMode',
  'SkillDispatchInput',
  'StdioServerConfig',
  'ToolApprovalRequirement',
  'ToolCatalogPolicy',
  'ToolCheck',
  'ToolDescriptor',
  'ToolDiagnostic',
  'ToolExecutor',
  'ToolHooks',
  'ToolHost',
  'ToolPlan',
  'ToolPlanContractErrorCode',
  'ToolPlanEntry',
  'ToolPolicy',
  'ToolRefusal',
  'ToolResult',
  'ToolShapes',
  'ToolSource',
  'ToolSourceKind',
  'ToolhostConfig',
  'ToolhostConfigInput',
  'ToolsOptions',
  'TraceContext',
  'Walls',
  'WriteStall',
];

/**
 * Public exports declared without a doc comment in files another branch owns (host/, sources/).
 * Remove a name once its declaration has one; never add one.
 */
const UNDOCUMENTED_FOR_NOW: string[] = [];

/** The internals the issue named: implementation parts that must not be public. */
const NAMED_INTERNALS = [
  'AsyncMutex',
  'formatExecutor',
  'formatOwner',
  'HookSet',
  'InlineSandbox',
  'McpBridge',
  'PluginSet',
  'ProcessSandbox',
  'bundlePlugin',
];

/** Types the issue named as handed out by the public API though internal. */
const NAMED_INTERNAL_TYPES = ['HostSnapshot', 'InFlightRecorder', 'Registry', 'Sandbox'];

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SRC = path.join(ROOT, 'packages/host/src');
const UPDATE_HINT =
  'the public export list of @toolhost/host changed: if on purpose, update the list in ' +
  'packages/host/test/public-api.test.ts (and README.md "Embedding it in an agent loop" when ' +
  'what users build on changed); if not, move the name back to src/internal.ts';

const EMBEDDING = '## Embedding it in an agent loop';
/**
 * What the README's Embedding example may import: toolhost's public entry points, zod for inputs,
 * and the official model SDKs (root devDependencies), so the adapters' shapes are checked against
 * the SDKs' own types where a user meets them.
 */
const EXAMPLE_IMPORTS = ['@toolhost/host', '@toolhost/plugin-sdk', 'zod', '@anthropic-ai/sdk', 'openai'];
/** Where the example is compiled, as a user's module at the repository root; never written. */
const EXAMPLE_FILE = path.join(ROOT, '__readme_embedding_example__.ts');
/** The Plugins section's `createHost` example (the config file's keys in code), compiled the same way. */
const PLUGINS = '## Plugins: third-party tools, sandboxed';
const PLUGINS_EXAMPLE_FILE = path.join(ROOT, '__readme_plugins_example__.ts');

interface ExportList {
  readonly values: string[];
  readonly types: string[];
  /** Statements that are not a named re-export, or re-export a module a second time, with their line. */
  readonly strays: string[];
}

/** The named re-exports of an entry file, parsed (without type checking). */
function exportsOf(file: string): ExportList {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const list: ExportList = { values: [], types: [], strays: [] };
  const modules = new Set<string>();
  for (const statement of source.statements) {
    const line = source.getLineAndCharacterOfPosition(statement.getStart()).line + 1;
    const clause = ts.isExportDeclaration(statement) ? statement.exportClause : undefined;
    const from =
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined;
    if (
      !ts.isExportDeclaration(statement) ||
      from === undefined ||
      modules.has(from) ||
      clause === undefined ||
      !ts.isNamedExports(clause)
    ) {
      list.strays.push(`${path.basename(file)}:${line}: ${statement.getText().split('\n')[0]}`);
      continue;
    }
    modules.add(from);
    for (const element of clause.elements) {
      (statement.isTypeOnly || element.isTypeOnly ? list.types : list.values).push(element.name.text);
    }
  }
  list.values.sort();
  list.types.sort();
  return list;
}

interface Example {
  readonly code: string;
  /** The README line of each line of `code`, for messages. */
  readonly readmeLines: readonly number[];
}

/** The ```ts blocks of one README section, joined into one module. */
function tsBlocksOf(readme: string, heading: string): Example {
  const lines = readme.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`README.md has no section "${heading}"`);
  const code: string[] = [];
  const readmeLines: number[] = [];
  let inBlock = false;
  for (let i = start + 1; i < lines.length && !lines[i]?.startsWith('## '); i += 1) {
    const line = lines[i] as string;
    if (line === (inBlock ? '```' : '```ts')) inBlock = !inBlock;
    else if (inBlock) {
      code.push(line);
      readmeLines.push(i + 1);
    }
  }
  return { code: code.join('\n'), readmeLines };
}

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const example = tsBlocksOf(README, EMBEDDING);
/** Each compiled example by its (virtual) file. */
const EXAMPLES = new Map([
  [EXAMPLE_FILE, example],
  [PLUGINS_EXAMPLE_FILE, tsBlocksOf(README, PLUGINS)],
]);

/**
 * One program over `src/index.ts` and the README example, with the repository's compiler options
 * (strict; workspace packages from source). Built once: parsing the host and its dependencies' types
 * is most of the cost (a few seconds).
 */
const program = (() => {
  let built: ts.Program | undefined;
  return (): ts.Program => {
    if (built !== undefined) return built;
    const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
    if (config.error !== undefined)
      throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, ' '));
    // Only the options matter: no need to list every file the config includes.
    const parsed = ts.parseJsonConfigFileContent(config.config, { ...ts.sys, readDirectory: () => [] }, ROOT);
    const options = { ...parsed.options, noEmit: true };
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.getSourceFile = (name, language, ...rest) => {
      const code = EXAMPLES.get(name)?.code;
      return code !== undefined
        ? ts.createSourceFile(name, code, language)
        : getSourceFile(name, language, ...rest);
    };
    host.fileExists = (name) => EXAMPLES.has(name) || fileExists(name);
    host.readFile = (name) => EXAMPLES.get(name)?.code ?? readFile(name);
    built = ts.createProgram({ rootNames: [path.join(SRC, 'index.ts'), ...EXAMPLES.keys()], options, host });
    return built;
  };
})();

/** Names of the public exports whose declaration has no doc comment (resolved through re-exports). */
function undocumentedExports(): string[] {
  const checker = program().getTypeChecker();
  const index = program().getSourceFile(path.join(SRC, 'index.ts'));
  const module = index === undefined ? undefined : checker.getSymbolAtLocation(index);
  if (module === undefined) throw new Error('src/index.ts is not a module');
  return checker
    .getExportsOfModule(module)
    .filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return ts.displayPartsToString(target.getDocumentationComment(checker)).trim() === '';
    })
    .map((symbol) => symbol.name)
    .sort();
}

/**
 * Each public member of `ToolHost` (property, getter, or method: its parameters and result,
 * promises unwrapped) whose type is declared in the host's sources under a name the public entry
 * does not export, as `member: Type`.
 */
function handedOutUnnamed(): string[] {
  const checker = program().getTypeChecker();
  const index = program().getSourceFile(path.join(SRC, 'index.ts'));
  const module = index === undefined ? undefined : checker.getSymbolAtLocation(index);
  if (module === undefined) throw new Error('src/index.ts is not a module');
  const exported = new Set(checker.getExportsOfModule(module).map((symbol) => symbol.name));
  const host = checker.getExportsOfModule(module).find((symbol) => symbol.name === 'ToolHost');
  if (host === undefined) throw new Error('ToolHost is not exported');
  const hostType = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(host));
  const unnamed = (member: string, type: ts.Type): string[] => {
    const awaited = checker.getAwaitedType(type) ?? type;
    const parts = awaited.isUnion() ? awaited.types : [awaited];
    return parts.flatMap((part) => {
      const symbol = part.aliasSymbol ?? part.getSymbol();
      const declared = symbol?.declarations?.[0]?.getSourceFile().fileName ?? '';
      // Anonymous shapes (`{ … }`, inline functions) are spelled out where they are used.
      if (symbol === undefined || symbol.name.startsWith('__') || !declared.startsWith(SRC)) return [];
      if (exported.has(symbol.name)) return [];
      return [`${member}: ${symbol.name}`];
    });
  };
  return hostType.getProperties().flatMap((property) => {
    const declaration = property.valueDeclaration;
    if (declaration === undefined || property.name.startsWith('#')) return [];
    const type = checker.getTypeOfSymbolAtLocation(property, declaration);
    const signatures = type.getCallSignatures();
    if (signatures.length === 0) return unnamed(property.name, type);
    return signatures.flatMap((signature) => [
      ...unnamed(property.name, signature.getReturnType()),
      ...signature.parameters.flatMap((parameter) =>
        unnamed(property.name, checker.getTypeOfSymbolAtLocation(parameter, declaration)),
      ),
    ]);
  });
}

/** What is wrong with a README example: imports beyond the public API, and type errors. */
function exampleProblems(file = EXAMPLE_FILE): string[] {
  const example = EXAMPLES.get(file) as Example;
  const source = program().getSourceFile(file) as ts.SourceFile;
  const where = (at: number) =>
    `README.md:${example.readmeLines[source.getLineAndCharacterOfPosition(at).line] ?? '?'}`;
  const imports = source.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
    statement.moduleSpecifier !== undefined &&
    ts.isStringLiteral(statement.moduleSpecifier)
      ? [{ at: statement.getStart(source), from: statement.moduleSpecifier.text }]
      : [],
  );
  return [
    ...imports
      .filter(({ from }) => !EXAMPLE_IMPORTS.includes(from))
      .map(
        ({ at, from }) => `${where(at)}: imports "${from}"; it may import only ${EXAMPLE_IMPORTS.join(', ')}`,
      ),
    ...(/\b(?:import|require)\s*\(/.test(example.code)
      ? ['README.md: the example loads a module dynamically']
      : []),
    ...[...program().getSyntacticDiagnostics(source), ...program().getSemanticDiagnostics(source)].map(
      (d) => `${where(d.start ?? 0)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    ),
  ];
}

describe('the public API of @toolhost/host', () => {
  const index = exportsOf(path.join(SRC, 'index.ts'));
  const internal = exportsOf(path.join(SRC, 'internal.ts'));
  // The type checker's program (seconds on a busy machine) is built once, under the hook's limit.
  beforeAll(() => {
    program();
  }, 120_000);

  it('index.ts and internal.ts are lists of named re-exports, one statement per module', () => {
    expect([...index.strays, ...internal.strays]).toEqual([]);
  });

  it('exports exactly the pinned values at run time', () => {
    expect(Object.keys(publicApi).sort(), UPDATE_HINT).toEqual(PUBLIC_VALUES);
    expect(index.values, 'the parse of index.ts disagrees with the module').toEqual(PUBLIC_VALUES);
  });

  it('exports exactly the pinned types', () => {
    expect(index.types, UPDATE_HINT).toEqual(PUBLIC_TYPES);
  });

  it('a name is public or internal, never both, and no public value is an internal one renamed', () => {
    const internalNames = new Set([...internal.values, ...internal.types]);
    expect([...index.values, ...index.types].filter((name) => internalNames.has(name))).toEqual([]);
    const internalValues = new Set<unknown>(Object.values(internalApi));
    expect(Object.entries(publicApi).filter(([, value]) => internalValues.has(value))).toEqual([]);
    expect(Object.keys(internalApi).sort()).toEqual(internal.values);
  });

  it('keeps the internals the issue named behind @toolhost/host/internal', () => {
    expect(NAMED_INTERNALS.filter((name) => name in publicApi || PUBLIC_TYPES.includes(name))).toEqual([]);
    expect(NAMED_INTERNALS.filter((name) => !(name in internalApi))).toEqual([]);
    expect(NAMED_INTERNAL_TYPES.filter((name) => index.types.includes(name))).toEqual([]);
    expect(NAMED_INTERNAL_TYPES.filter((name) => !internal.types.includes(name))).toEqual([]);
  });

  it('ToolHost hands out only types the public entry names (no snapshot, registry, sandbox or crash plumbing)', () => {
    expect(handedOutUnnamed()).toEqual([]);
  });

  it('documents every public export where it is declared', () => {
    const missing = undocumentedExports().filter((name) => !UNDOCUMENTED_FOR_NOW.includes(name));
    expect(missing, 'give each a one-line doc comment where it is declared').toEqual([]);
  });

  it("README.md's Embedding example type-checks against the public API only", () => {
    expect(example.code).toContain('createHost(');
    expect(exampleProblems()).toEqual([]);
  });

  it("README.md's Plugins example (the config file's keys given to createHost) type-checks", () => {
    expect(EXAMPLES.get(PLUGINS_EXAMPLE_FILE)?.code).toContain('createHost(');
    expect(exampleProblems(PLUGINS_EXAMPLE_FILE)).toEqual([]);
  });
});
