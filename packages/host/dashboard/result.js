/** A tool's result, rendered by content type. */
import { h, tree } from './dom.js';

/** Only links a person can follow safely; anything else (javascript:, data:…) is shown, not linked. */
function safeHref(uri) {
  try {
    const url = new URL(uri);
    return ['http:', 'https:', 'file:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** An image or audio block as its element from a data: URL; a note when its mimeType is not of `kind`. */
function media(content, kind, tag, attributes) {
  const type = mediaType(content.mimeType, kind);
  if (!type)
    return h('p', { class: 'note' }, `${kind} with an unusable mimeType ${JSON.stringify(content.mimeType)}`);
  return h(tag, {
    class: `content-${kind}`,
    ...attributes,
    src: `data:${type};base64,${content.data ?? ''}`,
  });
}

function mediaType(mimeType, kind) {
  return typeof mimeType === 'string' && new RegExp(`^${kind}/[\\w.+-]+$`).test(mimeType)
    ? mimeType
    : undefined;
}

function block(content) {
  switch (content?.type) {
    case 'text':
      return h('pre', { class: 'content-text' }, content.text ?? '');
    case 'image':
      return media(content, 'image', 'img', { alt: 'image result' });
    case 'audio':
      return media(content, 'audio', 'audio', { controls: true });
    case 'resource_link': {
      const href = safeHref(content.uri);
      const name = content.title ?? content.name ?? content.uri;
      return h(
        'p',
        { class: 'content-link' },
        'link: ',
        href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, name) : h('strong', null, name),
        ' ',
        h('code', null, content.uri ?? ''),
        content.description ? h('span', { class: 'dim' }, ` — ${content.description}`) : null,
      );
    }
    case 'resource': {
      const resource = content.resource ?? {};
      return h(
        'div',
        { class: 'content-resource' },
        h(
          'p',
          null,
          'resource ',
          h('code', null, resource.uri ?? ''),
          resource.mimeType ? h('span', { class: 'dim' }, ` (${resource.mimeType})`) : null,
        ),
        typeof resource.text === 'string'
          ? h('pre', null, resource.text)
          : h(
              'p',
              { class: 'note' },
              `binary content, ${typeof resource.blob === 'string' ? Math.floor((resource.blob.length * 3) / 4) : 0} bytes (not shown)`,
            ),
      );
    }
    default:
      return h(
        'div',
        { class: 'content-unknown' },
        h('p', { class: 'note' }, `content of type ${JSON.stringify(content?.type)}`),
        tree(content),
      );
  }
}

/** `{ status, durationMs, result }` of POST /api/call as a panel. */
export function renderCall(reply) {
  const result = reply.result ?? {};
  const isError = result.isError === true;
  const content = Array.isArray(result.content) ? result.content : [];
  return h(
    'div',
    { class: `call-result${isError ? ' is-error' : ''}`, dataset: { status: reply.status ?? '' } },
    h(
      'p',
      { class: 'call-status' },
      h('strong', null, reply.status ?? (isError ? 'error' : 'ok')),
      ` in ${Math.round(reply.durationMs ?? 0)} ms`,
      isError ? ' — the tool returned an error' : '',
    ),
    content.map(block),
    result.structuredContent !== undefined
      ? h('div', { class: 'structured' }, h('h4', null, 'structuredContent'), tree(result.structuredContent))
      : null,
  );
}
