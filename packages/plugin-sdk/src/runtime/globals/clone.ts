/**
 * `structuredClone` in plain JS: the structured-clone algorithm's value types (primitives but
 * symbols, wrappers, Date, RegExp, ArrayBuffer and views, Map, Set, Array, Error, plain
 * objects), cycles and shared references kept. Functions, symbols, class instances' prototypes
 * and accessors are not cloned (accessors are read, as the algorithm does). `transfer` is refused.
 *
 * At most {@link MAX_CLONE_VALUES} values are cloned in one call (the value itself and everything
 * in it): a clone of a few hundred thousand keys made V8 abort the whole process holding the
 * isolate, past any memory limit, and took seconds before that.
 */

/** The most values one `structuredClone` copies (object properties, array elements, Map and Set entries, nested values). */
export const MAX_CLONE_VALUES = 100_000;

function dataCloneError(what: string): Error {
  const error = new Error(`structuredClone: ${what} could not be cloned`);
  error.name = 'DataCloneError';
  return error;
}

const ERROR_TYPES: Record<string, ErrorConstructor> = {
  Error,
  EvalError,
  RangeError,
  ReferenceError,
  SyntaxError,
  TypeError,
  URIError,
};

const toStringTag = (value: object) => Object.prototype.toString.call(value).slice(8, -1);

export function structuredClone<T>(value: T, options?: { transfer?: readonly unknown[] }): T {
  if (options?.transfer !== undefined && options.transfer.length > 0) {
    throw dataCloneError('a transfer list (transferring is not supported in plugins)');
  }
  const seen = new Map<object, unknown>();
  let budget = MAX_CLONE_VALUES;

  const clone = (input: unknown): unknown => {
    if (--budget < 0) {
      throw dataCloneError(
        `a value of more than ${MAX_CLONE_VALUES} values (object properties, array elements, Map and Set entries)`,
      );
    }
    if (typeof input === 'symbol') throw dataCloneError(`${String(input)}`);
    if (typeof input === 'function') throw dataCloneError(`function ${input.name || '(anonymous)'}`);
    if (input === null || typeof input !== 'object') return input;
    const known = seen.get(input);
    if (known !== undefined) return known;
    const tag = toStringTag(input);
    let out: unknown;
    switch (tag) {
      case 'Boolean':
        out = Object(Boolean.prototype.valueOf.call(input));
        break;
      case 'Number':
        out = Object(Number.prototype.valueOf.call(input));
        break;
      case 'String':
        out = Object(String.prototype.valueOf.call(input));
        break;
      case 'BigInt':
        out = Object(BigInt.prototype.valueOf.call(input));
        break;
      case 'Date':
        out = new Date(Date.prototype.getTime.call(input));
        break;
      case 'RegExp': {
        const re = input as RegExp;
        out = new RegExp(re.source, re.flags);
        break;
      }
      case 'ArrayBuffer':
        out = ArrayBuffer.prototype.slice.call(input, 0);
        break;
      case 'SharedArrayBuffer':
        throw dataCloneError('a SharedArrayBuffer');
      case 'DataView': {
        const view = input as DataView;
        out = new DataView(clone(view.buffer) as ArrayBuffer, view.byteOffset, view.byteLength);
        break;
      }
      case 'Map': {
        const map = new Map();
        seen.set(input, map);
        for (const [k, v] of input as Map<unknown, unknown>) map.set(clone(k), clone(v));
        return map;
      }
      case 'Set': {
        const set = new Set();
        seen.set(input, set);
        for (const v of input as Set<unknown>) set.add(clone(v));
        return set;
      }
      case 'Array': {
        const source = input as unknown[];
        const array: unknown[] = new Array(source.length);
        seen.set(input, array);
        for (const key of Object.keys(source)) {
          (array as unknown as Record<string, unknown>)[key] = clone(
            (source as unknown as Record<string, unknown>)[key],
          );
        }
        return array;
      }
      case 'Error': {
        const source = input as Error;
        const name = String(source.name);
        const Ctor = Object.hasOwn(ERROR_TYPES, name) ? (ERROR_TYPES[name] as ErrorConstructor) : Error;
        const error = new Ctor(source.message === undefined ? undefined : String(source.message));
        seen.set(input, error);
        if (source.stack !== undefined) error.stack = String(source.stack);
        if ('cause' in source) (error as { cause?: unknown }).cause = clone(source.cause);
        return error;
      }
      default: {
        if (ArrayBuffer.isView(input)) {
          const view = input as unknown as { buffer: ArrayBuffer; byteOffset: number; length: number };
          const Ctor = (input as unknown as { constructor: unknown }).constructor;
          const typed = globalTypedArray(tag);
          if (typed === undefined || Ctor !== typed) throw dataCloneError(`a ${tag}`);
          out = new typed(clone(view.buffer) as ArrayBuffer, view.byteOffset, view.length);
          break;
        }
        if (tag !== 'Object') throw dataCloneError(`a ${tag} object`);
        const object: Record<string, unknown> = {};
        seen.set(input, object);
        for (const key of Object.keys(input)) {
          // defineProperty: a key named "__proto__" stays an own property, as the algorithm keeps it.
          Object.defineProperty(object, key, {
            value: clone((input as Record<string, unknown>)[key]),
            writable: true,
            enumerable: true,
            configurable: true,
          });
        }
        return object;
      }
    }
    seen.set(input, out);
    return out;
  };

  return clone(value) as T;
}

const TYPED_ARRAYS: Record<string, new (b: ArrayBuffer, o: number, l: number) => unknown> = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
};

function globalTypedArray(tag: string) {
  return Object.hasOwn(TYPED_ARRAYS, tag) ? TYPED_ARRAYS[tag] : undefined;
}
