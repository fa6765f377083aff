/** `text` cut to its first `max` characters, with `…` to show it was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
