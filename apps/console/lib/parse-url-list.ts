/**
 * One URL per line; blank lines and `#` comments are dropped. A CSV line keeps its first
 * column. Nothing else is split: a bad line goes to the coordinator whole, so it is refused
 * whole, with its reason.
 */
export function parseUrlList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => (/^https?:\/\/[^,\s]+,/i.test(l) ? l.slice(0, l.indexOf(',')) : l));
}
