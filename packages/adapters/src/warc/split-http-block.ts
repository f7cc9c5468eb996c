const CRLFCRLF = Buffer.from('\r\n\r\n');
const decoder = new TextDecoder('utf-8');

/** An `application/http` content block split into its parts. */
export interface HttpBlock {
  /** Status code from a response status line, null for a request line or a malformed one. */
  status: number | null;
  /** Header fields, names as written, repeated names joined with `, `. */
  headers: Record<string, string>;
  /** Bytes after the blank line that ends the header block. */
  payload: Uint8Array;
}

/**
 * Splits a WARC `application/http` block at its first blank line. We split raw bytes ourselves
 * (rather than letting warcio parse HTTP) so the block digest is checked over the exact bytes.
 */
export function splitHttpBlock(block: Uint8Array): HttpBlock {
  const buffer = Buffer.from(block.buffer, block.byteOffset, block.byteLength);
  const end = buffer.indexOf(CRLFCRLF);
  const headEnd = end < 0 ? block.byteLength : end;
  const lines = decoder.decode(block.subarray(0, headEnd)).split('\r\n');
  const statusMatch = /^HTTP\/\S+\s+(\d{3})/.exec(lines[0] ?? '');
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return {
    status: statusMatch?.[1] ? Number(statusMatch[1]) : null,
    headers,
    payload: end < 0 ? new Uint8Array(0) : block.subarray(end + 4),
  };
}
