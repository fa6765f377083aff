/**
 * The code evaluated in a fresh code-mode isolate before the model's script: a closure over the
 * two host callbacks (`call`, `done`) and the console bound, returning the host's entry points
 * (`start`, `settle`). It captures what it relies on before the script runs; the script can
 * tamper with the isolate's globals afterwards, but only inside its own throwaway isolate:
 * what leaves is strings, serialized here within the isolate's CPU limit and size-capped.
 *
 * Nothing of the host reaches the script but `tools` (a proxy whose every property is an async
 * function that sends a JSON string to the host) and `console` (which writes to a bounded
 * buffer). The callbacks themselves stay in this closure.
 */
export const CODE_RUNTIME = `
'use strict';
const call = $0, done = $1, maxLogChars = $2, maxResultChars = $3;
const stringify = JSON.stringify, parse = JSON.parse, StringCtor = String, ErrorCtor = Error;
const PromiseCtor = Promise, promiseThen = Promise.prototype.then, promiseResolve = Promise.resolve.bind(Promise);
const freeze = Object.freeze, create = Object.create, defineProperty = Object.defineProperty;
defineProperty(ErrorCtor, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });
// WebAssembly memory is not counted by the isolate's memory limit.
delete globalThis.WebAssembly;
const pending = create(null);
let nextId = 0;
let log = '';
let dropped = 0;
let finished = false;

function describe(value) {
  try {
    if (typeof value === 'object' && value !== null && typeof value.message === 'string') {
      const name = typeof value.name === 'string' ? value.name : 'Error';
      return name + ': ' + value.message;
    }
    return 'thrown: ' + text(value);
  } catch (error) {
    return 'a value that cannot be described was thrown';
  }
}
function text(value) {
  if (typeof value === 'string') return value;
  try {
    const json = stringify(value);
    if (json !== undefined) return json;
  } catch (error) {}
  try { return StringCtor(value); } catch (error) { return '[unprintable]'; }
}
function write(level, args) {
  let line = level === 'log' ? '' : level + ': ';
  for (let i = 0; i < args.length; i++) line += (i === 0 ? '' : ' ') + text(args[i]);
  line += '\\n';
  const room = maxLogChars - log.length;
  if (line.length <= room) log += line;
  else {
    if (room > 0) log += line.slice(0, room);
    dropped += line.length - (room > 0 ? room : 0);
  }
}
const consoleObject = create(null);
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  consoleObject[level] = function (...args) { write(level, args); };
}
defineProperty(globalThis, 'console', { value: freeze(consoleObject), writable: false, configurable: false });

function callTool(name, input) {
  let json;
  try {
    json = stringify(input === undefined ? {} : input);
  } catch (error) {
    return PromiseCtor.reject(new ErrorCtor('the input of tools.' + name + ' is not JSON: ' + describe(error)));
  }
  return new PromiseCtor((resolve, reject) => {
    nextId += 1;
    pending[nextId] = { resolve, reject };
    call(nextId, name, json);
  });
}
const tools = new Proxy(create(null), {
  get(target, name) {
    // 'then' stays undefined so that awaiting the tools object itself does not call a tool.
    if (typeof name !== 'string' || name === 'then') return undefined;
    return (input) => callTool(name, input);
  },
  set() { return false; },
  defineProperty() { return false; },
  deleteProperty() { return false; },
  setPrototypeOf() { return false; },
});
defineProperty(globalThis, 'tools', { value: tools, writable: false, configurable: false });

function finish(ok, value) {
  if (finished) return;
  finished = true;
  let out;
  try {
    out = ok ? stringify({ ok: true, value: value }) : stringify({ ok: false, error: describe(value) });
  } catch (error) {
    out = stringify({ ok: false, error: 'the returned value is not JSON: ' + describe(error) });
  }
  if (out.length > maxResultChars) out = stringify({ ok: false, tooLarge: out.length });
  done(out, log, dropped);
}

const entry = create(null);
entry.start = function (main) {
  let promise;
  try {
    promise = main();
  } catch (error) {
    finish(false, error);
    return;
  }
  promiseThen.call(promiseResolve(promise), (value) => finish(true, value), (error) => finish(false, error));
};
entry.settle = function (id, ok, payload) {
  const waiter = pending[id];
  if (waiter === undefined) return;
  delete pending[id];
  if (ok) waiter.resolve(parse(payload));
  else waiter.reject(new ErrorCtor(payload));
};
return entry;
`;
