/** A tool's page: description, schemas and the try-a-tool form. */
import { fill, h, postJson } from './dom.js';
import { field, fullyExpressible } from './form.js';
import { renderCall } from './result.js';

export function showTool(view, name, tool, hidden, loaded) {
  const back = h('a', { href: '#/', class: 'back' }, '← plan');
  if (!tool) {
    fill(
      view,
      back,
      h('h2', null, name),
      hidden
        ? [
            h('p', { class: 'error' }, 'This tool is hidden:'),
            h(
              'ul',
              { class: 'diagnostics' },
              hidden.diagnostics.map((d) => h('li', null, `${d.reason}: ${d.message}`)),
            ),
          ]
        : h('p', { class: 'dim' }, loaded ? 'No such tool in the plan now.' : 'Loading…'),
    );
    return;
  }
  const schema = tool.inputSchema ?? { type: 'object' };
  const formField = field(schema, '', 'input', true);
  const raw = h('textarea', { class: 'raw-input', rows: 10, 'aria-label': 'Input as JSON', hidden: true });
  const rawToggle = h('input', { type: 'checkbox', id: 'raw-toggle' });
  const errors = h('ul', { class: 'form-errors', id: 'form-errors', role: 'alert' });
  const result = h('div', { id: 'call-result' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Call');

  const useRaw = (on) => {
    if (on) {
      const { value } = formField.read();
      raw.value = JSON.stringify(value ?? {}, null, 2);
    } else {
      try {
        formField.set(JSON.parse(raw.value));
      } catch {
        // Unparsable JSON: the form keeps what it had.
      }
    }
    rawToggle.checked = on;
    raw.hidden = !on;
    formField.el.hidden = on;
    fill(errors);
  };
  rawToggle.addEventListener('change', () => useRaw(rawToggle.checked));

  const form = h(
    'form',
    { id: 'tool-form', class: 'tool-form', novalidate: true },
    h(
      'div',
      { class: 'raw-switch' },
      rawToggle,
      h('label', { for: 'raw-toggle' }, ' edit the input as raw JSON'),
    ),
    formField.el,
    raw,
    errors,
    submit,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let input;
    const problems = [];
    for (const el of form.querySelectorAll('.invalid')) el.classList.remove('invalid');
    if (rawToggle.checked) {
      try {
        input = JSON.parse(raw.value);
      } catch (error) {
        problems.push({ path: '', message: `input is not valid JSON: ${error.message}` });
      }
    } else {
      const read = formField.read();
      input = read.value;
      problems.push(...read.errors);
    }
    fill(
      errors,
      problems.map((p) => h('li', { dataset: { path: p.path } }, p.message)),
    );
    if (problems.length > 0) {
      for (const p of problems)
        form.querySelector(`[data-path="${CSS.escape(p.path)}"]`)?.classList.add('invalid');
      return;
    }
    submit.disabled = true;
    fill(result, h('p', { class: 'dim' }, 'calling…'));
    try {
      const reply = await postJson('/api/call', { tool: tool.name, input });
      fill(result, renderCall(reply));
    } catch (error) {
      fill(result, h('p', { class: 'error' }, error.message));
    } finally {
      submit.disabled = false;
    }
  });

  fill(
    view,
    back,
    h('h2', null, tool.name, tool.title ? h('span', { class: 'dim' }, ` — ${tool.title}`) : null),
    h(
      'p',
      { class: 'meta' },
      h('code', null, tool.owner),
      ' ',
      h('span', { class: 'badge' }, tool.kind),
      ' ',
      h('span', { class: 'badge' }, tool.deferred ? 'deferred' : 'loaded'),
    ),
    h('p', { class: 'description' }, tool.description ?? ''),
    tool.annotations
      ? h(
          'details',
          { class: 'fold' },
          h('summary', null, 'annotations'),
          h('pre', null, JSON.stringify(tool.annotations, null, 2)),
        )
      : null,
    h(
      'details',
      { class: 'fold schema', open: true },
      h('summary', null, 'input schema'),
      h('pre', { id: 'input-schema' }, JSON.stringify(schema, null, 2)),
    ),
    tool.outputSchema
      ? h(
          'details',
          { class: 'fold schema' },
          h('summary', null, 'output schema'),
          h('pre', null, JSON.stringify(tool.outputSchema, null, 2)),
        )
      : null,
    h('h3', null, 'Try it'),
    form,
    result,
  );
  if (!fullyExpressible(schema)) useRaw(true);
}
