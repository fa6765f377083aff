/**
 * The intrinsics the runtime relies on, captured once when the prelude is evaluated, before any
 * plugin code exists: a plugin that later replaces `JSON.stringify`, `Promise.prototype.then` or
 * `Error` changes what it sees, not what the runtime uses.
 */

export const global = globalThis as unknown as Record<string, unknown>;
export const stringify = JSON.stringify;
export const parse = JSON.parse;
export const hasOwn = Object.hasOwn;
export const getPrototypeOf = Object.getPrototypeOf;
export const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const isArray = Array.isArray;
export const PromiseCtor = Promise;
export const PromiseProto = Promise.prototype;
export const promiseThen = Promise.prototype.then;
export const ErrorCtor = Error;
export const StringCtor = String;
const apply = Reflect.apply;
const isWellFormedFn = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;
/** Whether `text` has no lone surrogate (false where the engine cannot tell). */
export const isWellFormed = (text: string): boolean =>
  isWellFormedFn !== undefined && apply(isWellFormedFn, text, []) === true;
export const freeze = Object.freeze;
const lastIndexOfFn = String.prototype.lastIndexOf;
const sliceFn = String.prototype.slice;
/** `text.lastIndexOf(search)`, as captured. */
export const lastIndexOf = (text: string, search: string): number =>
  apply(lastIndexOfFn, text, [search]) as number;
/** `text.slice(start, end)`, as captured. */
export const slice = (text: string, start: number, end?: number): string =>
  apply(sliceFn, text, end === undefined ? [start] : [start, end]) as string;
