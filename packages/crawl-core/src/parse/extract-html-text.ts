/** Whitespace collapsing and capped text for extract-html.ts, linear in the input. */

/**
 * The whitespace runs (`\s+`) that are not already a single space: replacing these with a
 * space collapses whitespace as `s.replace(/\s+/g, ' ')` does, with far fewer matches in
 * ordinary text.
 */
export const UNCOLLAPSED = /[^\S ]\s*| \s+/g;

/** `s` with whitespace collapsed and trimmed, at most `max` code units. */
export function collapse(s: string, max: number): string {
  return cutAt(s.replace(UNCOLLAPSED, ' ').trim(), max);
}

/** `s` cut to at most `max` code units without splitting a surrogate pair. */
function cutAt(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * Accumulates visible text, to be read with every whitespace run collapsed to one space and
 * the ends trimmed, stopping at a cap. Chunks are kept as they come and collapsed with one
 * regular expression when the text is read, or when the raw length has grown by the cap since
 * the last look (to tell whether the collapsed text is over it yet): linear in the input.
 */
export class TextSink {
  private parts: string[] = [];
  private rawLength = 0;
  /** Raw length at which to collapse what there is and compare it with the cap. */
  private nextCheck: number;
  truncated = false;

  constructor(private readonly max: number) {
    this.nextCheck = max;
  }

  add(raw: string): void {
    if (this.truncated) return;
    this.parts.push(raw);
    this.rawLength += raw.length;
    if (this.rawLength > this.nextCheck) this.check();
  }

  /** A word break (block boundary). */
  break(): void {
    this.add(' ');
  }

  /** Collapses the text so far, and compares its length with the cap. */
  private check(): void {
    // Leading whitespace never counts; a trailing space does (as part of the text so far).
    const collapsed = this.parts.join('').replace(UNCOLLAPSED, ' ').trimStart();
    this.parts = [collapsed];
    this.rawLength = collapsed.length;
    this.nextCheck = collapsed.length + this.max;
    if (collapsed.length > this.max) this.truncated = true;
  }

  text(): string {
    if (!this.truncated) this.check();
    const all = (this.parts[0] ?? '').trimEnd();
    return this.truncated ? cutAt(all, this.max).trimEnd() : all;
  }
}
