/**
 * A form generated from a tool's input JSON Schema. Each schema node becomes a field with an
 * element and a `read()` that returns `{ value, errors }` (value `undefined` = left empty).
 * What the form cannot express (oneOf/anyOf/allOf, $ref, patternProperties, tuples…) becomes a
 * raw-JSON box for that part, and the whole input can always be edited as raw JSON.
 */
import { h } from './dom.js';

const UNSUPPORTED = ['oneOf', 'anyOf', 'allOf', 'not', '$ref', 'if', 'patternProperties', 'prefixItems'];

/** The single non-null type of a node, or undefined when it has none or several. */
function typeOf(schema) {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    return types.length === 1 ? types[0] : undefined;
  }
  if (typeof schema.type === 'string') return schema.type;
  if (schema.properties) return 'object';
  return undefined;
}

/** Whether the form can show this node itself (its children may still fall back to raw JSON). */
function expressible(schema) {
  if (!schema || typeof schema !== 'object') return false;
  if (UNSUPPORTED.some((key) => key in schema)) return false;
  if (Array.isArray(schema.enum) || 'const' in schema) return true;
  return typeOf(schema) !== undefined;
}

/** Whether every node of the schema is expressible (then the form starts as a form, not raw JSON). */
export function fullyExpressible(schema) {
  if (!expressible(schema)) return false;
  const type = typeOf(schema);
  if (type === 'object') {
    const props = schema.properties ?? {};
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') return false;
    return Object.values(props).every(fullyExpressible);
  }
  if (type === 'array') return schema.items === undefined || fullyExpressible(schema.items);
  return true;
}

let nextId = 0;

function describe(schema) {
  return schema.description ? h('small', { class: 'field-help' }, schema.description) : null;
}

function label(name, required, forId) {
  return h(
    'label',
    { for: forId },
    name,
    required ? h('span', { class: 'required', title: 'required' }, ' *') : null,
  );
}

/** Makes the field for `schema` at `path` ('' = the root). */
export function field(schema, path, name, required) {
  schema = schema && typeof schema === 'object' ? schema : {};
  if (!expressible(schema)) return rawField(schema, path, name, required);
  if (Array.isArray(schema.enum)) return enumField(schema, path, name, required);
  if ('const' in schema) return constField(schema, name);
  switch (typeOf(schema)) {
    case 'object':
      return objectField(schema, path, name, required);
    case 'array':
      return arrayField(schema, path, name, required);
    case 'boolean':
      return booleanField(schema, path, name);
    case 'number':
    case 'integer':
      return numberField(schema, path, name, required);
    case 'string':
      return stringField(schema, path, name, required);
    default:
      return rawField(schema, path, name, required);
  }
}

function shownPath(path) {
  return path === '' ? 'input' : path;
}

function missing(path, required) {
  return required ? [{ path, message: `${shownPath(path)} is required` }] : [];
}

/** A field the person left alone: no value, or an unticked checkbox. */
function isEmpty(child) {
  const { value } = child.read();
  return value === undefined || (child.kind === 'boolean' && value === false);
}

function objectField(schema, path, name, required) {
  const props = schema.properties ?? {};
  const requiredKeys = new Set(Array.isArray(schema.required) ? schema.required : []);
  const children = Object.entries(props).map(([key, sub]) => {
    const childPath = path === '' ? key : `${path}.${key}`;
    return [key, field(sub, childPath, key, requiredKeys.has(key))];
  });
  const body = children.map(([, child]) => child.el);
  const el =
    path === ''
      ? h(
          'div',
          { class: 'object-root' },
          describe(schema),
          body,
          children.length === 0 ? h('p', { class: 'dim' }, 'This tool takes no input.') : null,
        )
      : h(
          'fieldset',
          { class: 'object', dataset: { path } },
          h('legend', null, name, required ? h('span', { class: 'required' }, ' *') : null),
          describe(schema),
          body,
        );
  return {
    el,
    read() {
      const value = {};
      const errors = [];
      for (const [key, child] of children) {
        const got = child.read();
        errors.push(...got.errors);
        if (got.value !== undefined) value[key] = got.value;
      }
      // A nested object left wholly empty is left out (or missing, when required) rather than
      // reporting each of its own required fields; the root is always sent.
      if (path !== '' && children.every(([, child]) => isEmpty(child))) {
        return { value: undefined, errors: missing(path, required) };
      }
      return { value, errors };
    },
    set(value) {
      if (!value || typeof value !== 'object') return;
      for (const [key, child] of children) if (key in value) child.set(value[key]);
    },
  };
}

function arrayField(schema, path, name, required) {
  const items = [];
  const list = h('ol', { class: 'array-items' });
  const addItem = (value) => {
    const index = items.length;
    const item = field(schema.items ?? {}, `${path}[${index}]`, `item ${index + 1}`, true);
    if (value !== undefined) item.set(value);
    const row = h('li', null, item.el);
    const entry = { item, row };
    row.append(
      h(
        'button',
        {
          type: 'button',
          class: 'remove-item',
          onclick: () => {
            items.splice(items.indexOf(entry), 1);
            row.remove();
          },
        },
        'Remove',
      ),
    );
    items.push(entry);
    list.append(row);
  };
  const el = h(
    'fieldset',
    { class: 'array', dataset: { path } },
    h('legend', null, name, required ? h('span', { class: 'required' }, ' *') : null),
    describe(schema),
    list,
    h('button', { type: 'button', class: 'add-item', onclick: () => addItem() }, 'Add item'),
  );
  const set = (value) => {
    for (const { row } of items.splice(0)) row.remove();
    if (Array.isArray(value)) for (const v of value) addItem(v);
  };
  if (Array.isArray(schema.default)) set(schema.default);
  return {
    el,
    read() {
      const value = [];
      const errors = [];
      for (const { item } of items) {
        const got = item.read();
        errors.push(...got.errors);
        if (got.value !== undefined) value.push(got.value);
      }
      if (value.length === 0 && errors.length === 0 && !Array.isArray(schema.default))
        return { value: undefined, errors: missing(path, required) };
      return { value, errors };
    },
    set,
  };
}

function enumField(schema, path, name, required) {
  const id = `f${nextId++}`;
  const select = h('select', { id, name: path, dataset: { path } });
  const hasDefault = 'default' in schema;
  if (!required || !hasDefault)
    select.append(h('option', { value: '' }, required ? '— choose —' : '— none —'));
  schema.enum.forEach((option, index) => {
    select.append(
      h('option', { value: String(index) }, typeof option === 'string' ? option : JSON.stringify(option)),
    );
  });
  const set = (value) => {
    const index = schema.enum.findIndex((option) => JSON.stringify(option) === JSON.stringify(value));
    select.value = index < 0 ? '' : String(index);
  };
  if (hasDefault) set(schema.default);
  return {
    el: h('div', { class: 'field' }, label(name, required, id), select, describe(schema)),
    read() {
      if (select.value === '') return { value: undefined, errors: missing(path, required) };
      return { value: schema.enum[Number(select.value)], errors: [] };
    },
    set,
  };
}

function constField(schema, name) {
  return {
    el: h(
      'div',
      { class: 'field' },
      h('span', { class: 'label' }, name),
      ' ',
      h('code', null, JSON.stringify(schema.const)),
    ),
    read: () => ({ value: schema.const, errors: [] }),
    set() {},
  };
}

function booleanField(schema, path, name) {
  const id = `f${nextId++}`;
  const box = h('input', {
    id,
    type: 'checkbox',
    name: path,
    dataset: { path },
    checked: schema.default === true,
  });
  return {
    kind: 'boolean',
    el: h('div', { class: 'field checkbox' }, box, label(name, false, id), describe(schema)),
    read: () => ({ value: box.checked, errors: [] }),
    set(value) {
      box.checked = value === true;
    },
  };
}

function numberField(schema, path, name, required) {
  const id = `f${nextId++}`;
  const integer = typeOf(schema) === 'integer';
  const input = h('input', {
    id,
    type: 'number',
    name: path,
    dataset: { path },
    step: integer ? '1' : 'any',
    min: schema.minimum,
    max: schema.maximum,
    value: typeof schema.default === 'number' ? String(schema.default) : undefined,
  });
  return {
    el: h('div', { class: 'field' }, label(name, required, id), input, describe(schema)),
    read() {
      const text = input.value.trim();
      if (text === '') {
        // A browser leaves `value` empty for text it cannot parse as a number.
        if (input.validity.badInput)
          return { value: undefined, errors: [{ path, message: `${shownPath(path)} must be a number` }] };
        return { value: undefined, errors: missing(path, required) };
      }
      const value = Number(text);
      if (!Number.isFinite(value))
        return { value: undefined, errors: [{ path, message: `${shownPath(path)} must be a number` }] };
      if (integer && !Number.isInteger(value))
        return { value: undefined, errors: [{ path, message: `${shownPath(path)} must be an integer` }] };
      return { value, errors: [] };
    },
    set(value) {
      input.value = typeof value === 'number' ? String(value) : '';
    },
  };
}

function stringField(schema, path, name, required) {
  const id = `f${nextId++}`;
  const long =
    (schema.maxLength ?? Number.POSITIVE_INFINITY) > 200 &&
    /text|content|body|code|script|markdown/i.test(name);
  const input = long
    ? h('textarea', { id, name: path, dataset: { path }, rows: 4 })
    : h('input', { id, type: 'text', name: path, dataset: { path } });
  if (typeof schema.default === 'string') input.value = schema.default;
  if (typeof schema.examples?.[0] === 'string') input.placeholder = schema.examples[0];
  return {
    el: h('div', { class: 'field' }, label(name, required, id), input, describe(schema)),
    read() {
      // An empty optional string is left out; an empty required one is missing.
      if (input.value === '') return { value: undefined, errors: missing(path, required) };
      return { value: input.value, errors: [] };
    },
    set(value) {
      input.value = typeof value === 'string' ? value : '';
    },
  };
}

/** A raw-JSON box for a part of the schema the form cannot express. */
function rawField(schema, path, name, required) {
  const id = `f${nextId++}`;
  const area = h('textarea', {
    id,
    class: 'raw-json',
    name: path,
    dataset: { path },
    rows: 3,
    placeholder: 'JSON',
  });
  if ('default' in schema) area.value = JSON.stringify(schema.default);
  return {
    el: h(
      'div',
      { class: 'field' },
      label(`${name} (JSON)`, required, id),
      area,
      describe(schema),
      h(
        'details',
        { class: 'fold' },
        h('summary', null, 'schema'),
        h('pre', null, JSON.stringify(schema, null, 2)),
      ),
    ),
    read() {
      if (area.value.trim() === '') return { value: undefined, errors: missing(path, required) };
      try {
        return { value: JSON.parse(area.value), errors: [] };
      } catch (error) {
        return {
          value: undefined,
          errors: [{ path, message: `${shownPath(path)} is not valid JSON: ${error.message}` }],
        };
      }
    },
    set(value) {
      area.value = value === undefined ? '' : JSON.stringify(value);
    },
  };
}
