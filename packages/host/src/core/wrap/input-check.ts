/**
 * Host-side input validation against a descriptor's JSON Schema, for every tool whose executor
 * does not check its input on the host itself (plugin tools, bridged MCP tools, tools handed in as
 * a `ToolSource`). Hooks then always see valid input with the schema's defaults applied.
 *
 * The schemas come from untrusted code (a plugin's manifest, an MCP server's `tools/list`), so:
 * - `pattern`, `patternProperties` and `propertyNames` run on RE2 (re2js, linear time), never on
 *   the backtracking `RegExp`: a schema cannot freeze the host with `^(a+)+$`. A pattern RE2 cannot
 *   run (lookaround, backreferences) is left to the executor, which validates again anyway.
 * - `format` is not checked here (formats are regexes of their own; the executor checks them).
 * - a schema over {@link MAX_SCHEMA_CHARS} characters or {@link MAX_SCHEMA_DEPTH} levels deep is
 *   refused before the compiler sees it.
 * - validators are compiled lazily, once per schema object (a `WeakMap`), so a rebuild of the Map
 *   compiles nothing and start-up compiles nothing. A host that starts serving MCP loads the
 *   compiler just after (`warmInputChecks`), so a session's first plugin call does not.
 */

import { createRequire } from 'node:module';
import type { JsonSchema } from '@toolhost/plugin-sdk';
import type { Ajv as AjvCore, ErrorObject, Options, ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import type { InputCheck, InputIssue } from '../../types.js';
import { messageOf } from '../../util/errors.js';

export const MAX_SCHEMA_CHARS = 1_000_000;
export const MAX_SCHEMA_DEPTH = 64;
/** Issues reported for one input; the rest are counted. */
const MAX_ISSUES = 20;

type AjvClass = new (options: Options) => AjvCore;
// Loaded on the first schema compiled, not at start-up: a host that only runs in-process tools
// never pays for the compiler.
const require = createRequire(import.meta.url);

interface RegExpLike {
  test(input: string): boolean;
}

/** ajv's `code.regExp`: a constructor-like function with a `code` name (used only for standalone code). */
function re2Engine(pattern: string, flags: string): RegExpLike {
  let compiled: RE2JS | undefined;
  try {
    compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    compiled = undefined;
  }
  const re = compiled;
  return {
    test: re === undefined ? () => true : (input: string) => re.test(input),
    // ajv keys its pattern cache by `toString()`: it must differ per pattern.
    toString: () => `/${pattern}/${flags}`,
  } as RegExpLike;
}
re2Engine.code = 're2js';

const baseOptions: Options = {
  strict: false,
  allErrors: true,
  useDefaults: true,
  // Failing values on the error objects (only failures pay), so a message can say what it got.
  verbose: true,
  validateFormats: false,
  validateSchema: false,
  addUsedSchema: false,
  code: { regExp: re2Engine as unknown as NonNullable<Options['code']>['regExp'] },
};

let draft2020: AjvCore | undefined;
let draft07: AjvCore | undefined;

/** The compiler for the schema's declared draft: 2020-12 unless it names draft-07 (or older). */
function compilerFor(schema: Record<string, unknown>): AjvCore {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(declared)) {
    draft07 ??= new (require('ajv') as { Ajv: AjvClass }).Ajv(baseOptions);
    return draft07;
  }
  draft2020 ??= new (require('ajv/dist/2020') as { Ajv2020: AjvClass }).Ajv2020(baseOptions);
  return draft2020;
}

/** Depth and size of a JSON value, stopping as soon as either passes its cap. */
function exceedsCaps(schema: unknown): string | undefined {
  let chars = 0;
  const walk = (value: unknown, depth: number): string | undefined => {
    if (depth > MAX_SCHEMA_DEPTH) return `it is nested deeper than ${MAX_SCHEMA_DEPTH} levels`;
    if (typeof value === 'string') chars += value.length;
    else chars += 8;
    if (chars > MAX_SCHEMA_CHARS) return `it is larger than ${MAX_SCHEMA_CHARS} characters`;
    if (typeof value !== 'object' || value === null) return undefined;
    for (const [key, child] of Object.entries(value)) {
      chars += key.length;
      const problem = walk(child, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  return walk(schema, 0);
}

/** Whether the schema has any `default`, so only those inputs are copied before defaults are applied. */
function hasDefaults(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (!Array.isArray(value) && Object.hasOwn(value, 'default')) return true;
  return Object.values(value).some(hasDefaults);
}

/** `/a/0/b` → `a.0.b`; the root is `(root)`, as zod issues are rendered. */
function pathOf(error: ErrorObject): string {
  const segments = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
  const missing = (error.params as { missingProperty?: unknown }).missingProperty;
  if (error.keyword === 'required' && typeof missing === 'string') segments.push(missing);
  const extra = (error.params as { additionalProperty?: unknown }).additionalProperty;
  if (error.keyword === 'additionalProperties' && typeof extra === 'string') segments.push(extra);
  if (segments.length === 0) return '(root)';
  return segments.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
}

/** What a JSON value is, in JSON Schema's type names (as zod's messages name them too). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Up to 10 allowed values as JSON, for a message. */
function allowedText(values: readonly unknown[]): string {
  const shown = values.slice(0, 10).map((v) => JSON.stringify(v) ?? String(v));
  return values.length > 10 ? `${shown.join(', ')}, …` : shown.join(', ');
}

/**
 * The schema's own message, made plain: what was expected (and, for a wrong type, what came).
 * These are the only words a model reads of a plugin tool's refused input: the isolate is not
 * asked for its own (see `callTool`).
 */
function ajvMessageOf(error: ErrorObject): string {
  return authorMessageOf(error) ?? schemaMessageOf(error);
}

/** The key under which a plugin's schema node carries its author's messages (the SDK's `toJsonSchema`). */
const MESSAGES_KEY = 'x-toolhost-messages';

/** The words the tool's author gave for this failure, when its schema carries them. */
function authorMessageOf(error: ErrorObject): string | undefined {
  const params = error.params as Record<string, unknown>;
  let node = error.parentSchema as Record<string, unknown> | undefined;
  let keyword = error.keyword;
  if (keyword === 'required' && typeof params.missingProperty === 'string') {
    // A missing field is refused in the words its own schema gives for a wrong type, as zod does.
    const properties = node?.properties as Record<string, Record<string, unknown>> | undefined;
    node =
      properties !== undefined && Object.hasOwn(properties, params.missingProperty)
        ? properties[params.missingProperty]
        : undefined;
    keyword = 'type';
  } else if (keyword === 'type' && params.type === 'integer' && typeof error.data === 'number') {
    keyword = 'integer';
  } else if (keyword === 'enum' || keyword === 'const') {
    keyword = 'type';
  }
  const messages = node?.[MESSAGES_KEY] as Record<string, unknown> | undefined;
  if (typeof messages !== 'object' || messages === null) return undefined;
  const text = Object.hasOwn(messages, keyword) ? messages[keyword] : undefined;
  const fallback = keyword === 'integer' && Object.hasOwn(messages, 'type') ? messages.type : undefined;
  const chosen = typeof text === 'string' ? text : fallback;
  return typeof chosen === 'string' && chosen !== '' ? chosen.slice(0, 500) : undefined;
}

function schemaMessageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return 'is not an allowed property';
    case 'required':
      return 'is required';
    case 'type': {
      const expected = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
      return `expected ${expected}, received ${kindOf(error.data)}`;
    }
    case 'enum':
      return Array.isArray(params.allowedValues)
        ? `must be one of ${allowedText(params.allowedValues)}`
        : (error.message ?? 'is not an allowed value');
    case 'const':
      return `must be ${allowedText([params.allowedValue])}`;
    default:
      return error.message ?? `fails "${error.keyword}"`;
  }
}

function issuesOf(errors: readonly ErrorObject[] | null | undefined): InputIssue[] {
  const all = errors ?? [];
  const issues = all
    .slice(0, MAX_ISSUES)
    .map((error) => ({ path: pathOf(error), message: ajvMessageOf(error) }));
  if (all.length > MAX_ISSUES) {
    issues.push({ path: '(root)', message: `and ${all.length - MAX_ISSUES} more problem(s)` });
  }
  return issues;
}

/** Where each top-level field stands in the schema, so issues come in the order a reader sees the fields. */
function fieldOrder(schema: JsonSchema): ReadonlyMap<string, number> {
  const properties = (schema as { properties?: unknown }).properties;
  const names = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  return new Map(names.map((name, index) => [name, index]));
}

/** The issues sorted by their field's place in the schema (a stable sort: the rest keep the validator's order). */
function inFieldOrder(issues: InputIssue[], order: ReadonlyMap<string, number>): InputIssue[] {
  const place = (issue: InputIssue) => order.get(issue.path.split('.')[0] ?? '') ?? order.size;
  return issues.sort((a, b) => place(a) - place(b));
}

/** A check that always fails with one issue: the schema itself is unusable. */
function unusable(message: string): (input: unknown) => InputCheck {
  const issues = [{ path: '(root)', message: `the tool's input schema cannot be used: ${message}` }];
  return () => ({ ok: false, issues });
}

function compile(schema: JsonSchema): (input: unknown) => InputCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return unusable('it is not an object');
  }
  const tooBig = exceedsCaps(schema);
  if (tooBig !== undefined) return unusable(tooBig);
  let validate: ValidateFunction;
  try {
    // The compiler keeps no copy of a schema compiled without an `$id` (addUsedSchema: false).
    const { $id: _id, ...rest } = schema as Record<string, unknown>;
    validate = compilerFor(rest).compile(rest);
  } catch (error) {
    return unusable(messageOf(error));
  }
  const copyFirst = hasDefaults(schema);
  const order = fieldOrder(schema);
  return (input) => {
    // Defaults are written into the value: never into the caller's own object.
    let value = input;
    if (copyFirst && typeof input === 'object' && input !== null) {
      try {
        value = structuredClone(input);
      } catch {
        return { ok: false, issues: [{ path: '(root)', message: 'the input is not plain JSON data' }] };
      }
    }
    return validate(value)
      ? { ok: true, value }
      : { ok: false, issues: inFieldOrder(issuesOf(validate.errors), order) };
  };
}

const compiled = new WeakMap<object, (input: unknown) => InputCheck>();

/**
 * Checks `input` against `schema`, compiling the schema on first use and keeping the validator
 * for as long as the schema object lives. An unusable schema fails every input with a message
 * saying why, so the tool cannot run unchecked.
 */
export function checkWithJsonSchema(schema: JsonSchema, input: unknown): InputCheck {
  const key = schema as object;
  let check = compiled.get(key);
  if (check === undefined) {
    check = compile(schema);
    compiled.set(key, check);
  }
  return check(input);
}

/** A schema with what most tools' schemas have: typed properties, one required, a default. */
const WARM_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { text: { type: 'string', minLength: 1 }, count: { type: 'integer', default: 1 } },
  required: ['text'],
  additionalProperties: false,
};

/**
 * Loads the 2020-12 compiler and compiles (and runs) one small schema, off any call's path: the
 * first plugin call of a served session paid for both, ≈ 75 ms of its ≈ 130 (`require` of ajv
 * ≈ 50 ms, its first compile ≈ 13 ms, and the garbage they left; `toolhost serve`, a call 3 s
 * after `tools/list`, serve's CPU profile). Later compiles, one per tool schema, take ≈ 1 ms.
 */
export function warmInputChecks(): void {
  warmups += 1;
  checkWithJsonSchema(WARM_SCHEMA, { text: 'warm' });
}

let warmups = 0;

/** How many times `warmInputChecks` ran in this process, and whether the 2020-12 compiler is loaded. */
export function inputCheckWarmth(): { warmups: number; loaded: boolean } {
  return { warmups, loaded: draft2020 !== undefined };
}
