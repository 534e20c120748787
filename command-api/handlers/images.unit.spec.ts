import { describe, expect, it } from 'vitest';
import { decodeBase64Image } from './images.ts';

const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0xfb, 0xef, 0xbe, 0x3f, 0x7e]);
const standard = bytes.toString('base64');

describe('decodeBase64Image', () => {
  it('reads bare base64, a data URL, the url-safe alphabet, line breaks and spaces, with or without padding', () => {
    expect(decodeBase64Image(standard)).toEqual(bytes);
    expect(decodeBase64Image(`data:image/jpeg;base64,${standard}`)).toEqual(bytes);
    expect(decodeBase64Image(bytes.toString('base64url'))).toEqual(bytes);
    expect(decodeBase64Image(`${standard.slice(0, 4)}\n${standard.slice(4, 9)} \r\n${standard.slice(9)}\n`)).toEqual(bytes);
    expect(decodeBase64Image(standard.replace(/=+$/, ''))).toEqual(bytes);
  });

  it('refuses text that is not base64 and a data URL that is not base64-encoded', () => {
    // Among them strings of a multiple of four characters, the decoder's fast path: one character
    // outside the alphabet, padding in the middle, too much padding, a non-Latin letter.
    for (const bad of ['abc$def', 'ab==cd', `${standard}===`, 'data:image/png,rawtext', 'QU*D', 'QQ==QQ==', 'QUJD====', 'QUJDRAé=', `${standard.slice(0, 8)}.${standard.slice(9)}`]) {
      expect(() => decodeBase64Image(bad), bad).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    }
  });
});
