/** Reading a response body as text without ever holding more than the byte cap. */

/**
 * The body decoded as UTF-8 (invalid sequences become U+FFFD), or undefined as soon as more than
 * `maxBytes` arrive; leaving the loop early destroys the stream, so the rest is not downloaded.
 * The transport has already removed the content coding, so the cap counts decoded bytes and a
 * compressed bomb is stopped too.
 */
export async function readCappedText(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<string | undefined> {
  const decoder = new TextDecoder();
  let total = 0;
  let text = '';
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) return undefined;
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}
