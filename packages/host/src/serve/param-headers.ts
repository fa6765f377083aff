/**
 * MCP 2026-07-28 `Mcp-Param-*` headers (SEP-2243): a tool whose input schema marks a property
 * with `x-mcp-header: "Name"` has that argument mirrored by the client into an `Mcp-Param-Name`
 * header, so a proxy can route on it without reading the body. The server must check that the
 * two agree: a value in the body needs the header, a header with the `=?base64?…?=` wrapper must
 * be canonical Base64 of UTF-8, and header and body must say the same. The SDK does this for its
 * high-level `McpServer` only; toolhost serves through the low-level `Server`, so it is done here,
 * before the request reaches the SDK's entry.
 */

/** One `x-mcp-header` property: where it is in the arguments, its header name and JSON type. */
interface Declaration {
  readonly path: readonly string[];
  readonly header: string;
  readonly type: string | undefined;
}

const MAX_DEPTH = 8;

/** Declarations per input schema, found once (schemas are frozen per descriptor and rebuild). */
const declarationsOf = new WeakMap<object, Declaration[]>();

function cachedDeclarations(schema: unknown): Declaration[] {
  if (!isRecord(schema)) return [];
  let found = declarationsOf.get(schema);
  if (found === undefined) {
    found = headerDeclarations(schema);
    declarationsOf.set(schema, found);
  }
  return found;
}

/** The `x-mcp-header` properties of an input schema, reachable through `properties` alone. */
export function headerDeclarations(schema: unknown, path: readonly string[] = []): Declaration[] {
  if (path.length > MAX_DEPTH || !isRecord(schema) || !isRecord(schema.properties)) return [];
  const found: Declaration[] = [];
  for (const [key, sub] of Object.entries(schema.properties)) {
    if (!isRecord(sub)) continue;
    const header = sub['x-mcp-header'];
    if (typeof header === 'string' && header !== '') {
      found.push({
        path: [...path, key],
        header,
        type: typeof sub.type === 'string' ? sub.type : undefined,
      });
    }
    found.push(...headerDeclarations(sub, [...path, key]));
  }
  return found;
}

const PREFIX = '=?base64?';
const SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A header value as the argument it mirrors, or `undefined` when its Base64 is not canonical UTF-8. */
function decoded(value: string): string | undefined {
  if (!(value.startsWith(PREFIX) && value.endsWith(SUFFIX) && value.length >= PREFIX.length + SUFFIX.length))
    return value;
  const b64 = value.slice(PREFIX.length, value.length - SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * Why the `Mcp-Param-*` headers of a `tools/call` disagree with its arguments, or `undefined`
 * when they agree (or the tool declares none). `headers.get` is case-insensitive, as HTTP's.
 */
export function paramHeaderMismatch(
  schema: unknown,
  args: unknown,
  headers: { get(name: string): string | null },
): { header: string; problem: string } | undefined {
  for (const declaration of cachedDeclarations(schema)) {
    const header = `Mcp-Param-${declaration.header}`;
    const body = valueAt(args, declaration.path);
    if (body === undefined || body === null) continue; // no value: no header expected
    if (typeof body !== 'string' && typeof body !== 'number' && typeof body !== 'boolean') continue;
    const where = declaration.path.join('.');
    const raw = headers.get(header);
    if (raw === null) {
      return {
        header,
        problem: `the arguments carry ${where}=${JSON.stringify(body)} but the ${header} header is absent`,
      };
    }
    const value = decoded(raw);
    if (value === undefined) {
      return {
        header,
        problem: `the ${header} header is not canonical Base64 of UTF-8 text inside =?base64?…?=`,
      };
    }
    const numeric =
      (declaration.type === 'integer' || declaration.type === 'number') && typeof body === 'number';
    const same = numeric && DECIMAL.test(value) ? Number(value) === body : value === String(body);
    if (!same) {
      return {
        header,
        problem: `the ${header} header says ${JSON.stringify(value)} but the arguments carry ${where}=${JSON.stringify(body)}`,
      };
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The 400 answer (JSON-RPC -32020, HeaderMismatch, as the SDK words its own header checks) to a
 * 2026-07-28 `tools/call` whose `Mcp-Param-*` headers disagree with its arguments, or `undefined`.
 * `schemaOf` finds the named tool's input schema.
 */
export function paramHeaderRejection(
  body: unknown,
  headers: { get(name: string): string | null },
  schemaOf: (tool: string) => unknown,
): Response | undefined {
  if (!isRecord(body) || body.method !== 'tools/call' || !isRecord(body.params)) return undefined;
  const { name, arguments: args } = body.params;
  if (typeof name !== 'string') return undefined;
  const schema = schemaOf(name);
  if (schema === undefined) return undefined;
  const mismatch = paramHeaderMismatch(schema, args, headers);
  if (mismatch === undefined) return undefined;
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  return Response.json(
    {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32020,
        message: `Bad Request: the request headers and body disagree: ${mismatch.problem}`,
        data: { mismatch: { header: mismatch.header, body: mismatch.problem } },
      },
    },
    { status: 400 },
  );
}
