/**
 * The realistic web's filler: its pages' bulk text is drawn from a corpus made once per seed —
 * paragraphs for the parts that carry links, and blocks of paragraphs (~4 KiB) kept both raw and
 * gzipped — so that serving an 80 KB page costs the web what a server of static, precompressed
 * content pays (copying), not rendering and compressing it anew: the web shares the machine with
 * the crawler it measures. A gzip body is a series of gzip members (RFC 1952 §2.2: one per
 * block, and one for each unique part), which every gzip decoder reads as one stream.
 */
import { gzipSync } from 'node:zlib';
import { mix, Rng } from '../prng.js';
import { paragraph } from './text.js';

/** Paragraphs (unique parts of pages pick from these) and blocks (the bulk). */
export interface FillerCorpus {
  paragraphs: readonly string[];
  blocks: ReadonlyArray<{ raw: Buffer; gzip: Buffer }>;
}

const PARAGRAPHS = 4096;
const BLOCKS = 2048;
const BLOCK_BYTES = 4096;

const corpora = new Map<number, FillerCorpus>();

/** The corpus of a seed (made on first use, ~0.5 s, ~12 MB). */
export function fillerCorpus(seed: number): FillerCorpus {
  let c = corpora.get(seed);
  if (c === undefined) {
    const rng = new Rng(mix(seed, 'filler'));
    const paragraphs = Array.from({ length: PARAGRAPHS }, () => paragraph(rng));
    const blocks = Array.from({ length: BLOCKS }, () => {
      let text = '';
      while (text.length < BLOCK_BYTES)
        text += `<p>${rng.pick(paragraphs)} ${paragraph(rng)}</p>\n`;
      const raw = Buffer.from(text);
      // As a server precompresses its static files: a level above the on-the-fly one.
      return { raw, gzip: gzipSync(raw, { level: 6 }) };
    });
    c = { paragraphs, blocks };
    corpora.set(seed, c);
  }
  return c;
}

/** A body in parts: unique strings and corpus blocks, raw and as gzip members. */
export class FillerBody {
  private readonly raw: Buffer[] = [];
  private readonly gz: Buffer[] = [];
  private pending = '';
  size = 0;

  constructor(private readonly corpus: FillerCorpus) {}

  text(s: string): void {
    this.pending += s;
    this.size += s.length;
  }

  block(i: number): void {
    this.flush();
    const b = this.corpus.blocks[i % this.corpus.blocks.length]!;
    this.raw.push(b.raw);
    this.gz.push(b.gzip);
    this.size += b.raw.length;
  }

  /** The raw bytes and the gzip encoding of the same bytes. */
  finish(): { body: Buffer; gzip: Buffer } {
    this.flush();
    return { body: Buffer.concat(this.raw), gzip: Buffer.concat(this.gz) };
  }

  private flush(): void {
    if (this.pending === '') return;
    const raw = Buffer.from(this.pending);
    this.raw.push(raw);
    this.gz.push(gzipSync(raw, { level: 1 }));
    this.pending = '';
  }
}
