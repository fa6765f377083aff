/** Reading a response body as text without ever holding more than the byte cap. */

/**
 * The body of `response` decoded as UTF-8 (invalid sequences become U+FFFD), or undefined as soon
 * as more than `maxBytes` arrive; the rest is then cancelled, not downloaded. The cap counts the
 * bytes after content decoding, so a compressed bomb is stopped too.
 */
export async function readCappedText(response: Response, maxBytes: number): Promise<string | undefined> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let total = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Response headers as a plain record; repeated fields (such as `set-cookie`) joined with `, `. */
export function headersRecord(headers: Headers): Record<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of headers) {
    const previous = fields.get(name);
    fields.set(name, previous === undefined ? value : `${previous}, ${value}`);
  }
  // fromEntries defines own properties, so a field named `__proto__` stays a plain field.
  return Object.fromEntries(fields);
}
