import { describe, expect, it } from 'vitest';
import { decodeBody } from './decode-body';

const latin1 = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('decodeBody', () => {
  it('reads the charset from Content-Type', () => {
    const d = decodeBody(latin1('<p>caf\u00e9</p>'), 'text/html; charset="ISO-8859-1"');
    expect(d).toEqual({ html: '<p>café</p>', charset: 'windows-1252', charsetSource: 'header' });
  });

  it('maps bytes 0x80–0x9F the WHATWG windows-1252 way (Node 20 decodes them as C1 controls)', () => {
    const bytes = new Uint8Array([
      0x80, 0x85, 0x91, 0x92, 0x93, 0x94, 0x96, 0x99, 0x9f, 0x81, 0xe9,
    ]);
    for (const ct of ['text/html; charset=windows-1252', 'text/html; charset=iso-8859-1']) {
      expect(decodeBody(bytes, ct).html).toBe('€…‘’“”–™Ÿ\u0081é');
    }
    expect(decodeBody(bytes, 'text/html').charsetSource).toBe('fallback');
    expect(decodeBody(bytes, 'text/html').html).toBe('€…‘’“”–™Ÿ\u0081é');
  });

  it('lets a byte-order mark win over the header, and strips it', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('<p>é</p>')]);
    expect(decodeBody(bom, 'text/html; charset=iso-8859-1')).toEqual({
      html: '<p>é</p>',
      charset: 'utf-8',
      charsetSource: 'bom',
    });
    const le = new Uint8Array([0xff, 0xfe, ...Buffer.from('<p>ü</p>', 'utf16le')]);
    expect(decodeBody(le, 'text/html')).toMatchObject({ html: '<p>ü</p>', charset: 'utf-16le' });
  });

  it('finds <meta charset> and http-equiv declarations in the first 1 KiB', () => {
    const meta = decodeBody(latin1('<meta charset=iso-8859-1><p>\u00e9</p>'), 'text/html');
    expect(meta).toMatchObject({
      html: '<meta charset=iso-8859-1><p>é</p>',
      charsetSource: 'meta',
    });
    const equiv = decodeBody(
      latin1(
        '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><p>\u00cf</p>',
      ),
      'text/html',
    );
    expect(equiv).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
    expect(equiv.html).toContain('П');
  });

  it('ignores a <meta> after 1 KiB or inside a comment, and meta-declared UTF-16', () => {
    const late = `${' '.repeat(1100)}<meta charset="iso-8859-1">`;
    expect(decodeBody(latin1(late), 'text/html').charsetSource).toBe('utf8');
    const commented = '<!-- <meta charset="koi8-r"> --><meta charset="utf-8">';
    expect(decodeBody(latin1(commented), '').charset).toBe('utf-8');
    expect(decodeBody(latin1('<meta charset="utf-16le"><p>x</p>'), '')).toMatchObject({
      html: '<meta charset="utf-16le"><p>x</p>',
      charset: 'utf-8',
    });
  });

  it('decodes undeclared UTF-8, and falls back to windows-1252 on invalid UTF-8', () => {
    expect(decodeBody(utf8('<p>日本語</p>'), 'text/html')).toEqual({
      html: '<p>日本語</p>',
      charset: 'utf-8',
      charsetSource: 'utf8',
    });
    expect(decodeBody(latin1('<p>na\u00efve</p>'), 'text/html')).toEqual({
      html: '<p>naïve</p>',
      charset: 'windows-1252',
      charsetSource: 'fallback',
    });
  });

  it('skips labels it does not know, and decodes other legacy encodings', () => {
    expect(decodeBody(utf8('<p>ok</p>'), 'text/html; charset=bogus-9').charsetSource).toBe('utf8');
    const sjis = new Uint8Array([0x93, 0xfa, 0x96, 0x7b]); // 日本 in Shift_JIS
    expect(decodeBody(sjis, 'text/html; charset=Shift_JIS').html).toBe('日本');
  });

  it('never throws on garbage or an empty body', () => {
    const garbage = Uint8Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 0xff);
    expect(() => decodeBody(garbage, 'text/html; charset=utf-8')).not.toThrow();
    expect(() => decodeBody(garbage, '')).not.toThrow();
    expect(decodeBody(new Uint8Array(0), '').html).toBe('');
  });
});
