/**
 * Synthetic HTML pages for the parser's tests and benchmarks: deterministic for a seed, with
 * the usual furniture (head metadata, header, nav, scripts, article, footer) and a target size.
 */
import { seededRandom } from '@crawler/domain/random';

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which ' +
  'but have an they you were her she there been one all we their has would when if so no ' +
  'crawler page link host robots fetch queue politeness delay server index search content ' +
  'network request response header body parser worker thread memory budget schedule shard ' +
  'frontier document language charset canonical archive snapshot latency throughput error'
).split(' ');

function sentence(next: () => number): string {
  const n = 8 + Math.floor(next() * 14);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]!);
  return `${words.join(' ')}.`;
}

/**
 * An HTML page of about `bytes` bytes (UTF-8), unique for each `seed`.
 *
 * @param seed varies the words, links and title
 * @param bytes approximate size in bytes (default 80 KB, the brief's average page)
 */
export function samplePage(seed: number, bytes = 80 * 1024): string {
  const next = seededRandom(seed);
  const head =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<title>Page ${seed} &amp; friends</title>` +
    `<meta name="description" content="About page ${seed}">` +
    `<link rel="canonical" href="/page/${seed}?utm_source=x">` +
    `<script>window.dataLayer=[];function track(){return "<p>not text</p>"}</script>` +
    `<style>body{font-family:sans-serif}</style></head><body>` +
    `<header><a href="/">Home</a> <a href="/about">About</a></header>` +
    `<nav><ul><li><a href="/a">A</a></li><li><a href="/b" rel="nofollow">B</a></li></ul></nav>` +
    `<main><article><h1>Heading ${seed}</h1>`;
  const tail =
    `</article></main><aside>Related: <a href="/related">more</a></aside>` +
    `<footer>&copy; 2026 <a href="/legal">Legal</a></footer>` +
    `<script src="/app.js"></script></body></html>`;
  const parts: string[] = [head];
  let size = head.length + tail.length;
  let i = 0;
  while (size < bytes) {
    const link = `<a href="/p/${seed}/${i}${next() < 0.1 ? '#frag' : ''}">${sentence(next)}</a>`;
    const p = `<p>${sentence(next)} <b>${sentence(next)}</b> ${link} ${sentence(next)}</p>\n`;
    parts.push(p);
    size += p.length;
    i++;
  }
  parts.push(tail);
  return parts.join('');
}
