import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.ts';
import { base64Decoder, decodeBase64 } from './base64-decoder.ts';

/** A small seeded generator, so a failure names its case and repeats. */
const seeded = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

/** `text` fed in chunks cut at random places (one character up to a few hundred). */
const decodeInChunks = (text: string, random: () => number): Buffer => {
  const decoder = base64Decoder(random() < 0.5 ? (text.length / 4) * 3 : 0);
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(random() * (random() < 0.3 ? 4 : 300));
    decoder.write(text.slice(at, at + size));
    at += size;
  }
  return decoder.end();
};

const refusal = (run: () => unknown): string | null => {
  try {
    run();
    return null;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return `${error.code}: ${error.message}`;
  }
};

describe('base64 decoder (type=base64 images, chunk by chunk)', () => {
  it('gives back the bytes of every form Node reads, however the text is cut', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = seeded(seed);
      const bytes = randomBytes(Math.floor(random() * 2000));
      let text = bytes.toString(random() < 0.3 ? 'base64url' : 'base64');
      if (random() < 0.3) text = text.replace(/=+$/, '');
      if (random() < 0.3) text = text.replace(/(.{1,76})/g, (line) => `${line}${random() < 0.5 ? '\r\n' : ' \t'}`);
      if (random() < 0.3) text = `${random() < 0.5 ? 'data:image/png;base64,' : 'DATA:;charset=x;BASE64,'}${text}`;
      if (random() < 0.2) text = `  \n${text}\n `;
      expect(decodeInChunks(text, random).equals(bytes), `seed ${seed}`).toBe(true);
      expect(decodeBase64(text).equals(bytes), `seed ${seed}, whole`).toBe(true);
    }
  });

  it('decodes the leftover characters as Node does (two or three give bytes, one nothing)', () => {
    for (const text of ['QUJD', 'QUJDRA', 'QUJDREU', 'QUJDREVGR', 'QQ=', 'QUI=', '', '   ']) {
      expect(decodeInChunks(text, seeded(7)).toString('latin1'), text).toBe(Buffer.from(text, 'base64').toString('latin1'));
    }
  });

  it('refuses text Node would read past silently, wherever the chunks are cut', () => {
    const bad = ['QUJD!QUJD', 'QUJD\u00e9', 'QQ==QUJD', 'QQ===', 'QUJD=x', 'data:image/png,QUJD', 'data:image/png;base64;QUJD', `data:${'x'.repeat(2000)}`];
    for (const text of bad) {
      for (let seed = 1; seed <= 20; seed++) {
        const answer = refusal(() => decodeInChunks(text, seeded(seed)));
        expect(answer, `${text} (seed ${seed})`).toMatch(/^validation_failed: image/);
      }
    }
    expect(refusal(() => decodeBase64('data:image/png,QUJD'))).toBe('validation_failed: image: a data URL must be base64-encoded');
  });

  it('refuses, whole, the cases of the fast path Node offers (a multiple of four characters that decodes short)', () => {
    const standard = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0xfb, 0xef, 0xbe, 0x3f, 0x7e]).toString('base64');
    for (const bad of ['abc$def', 'ab==cd', `${standard}===`, 'data:image/png,rawtext', 'QU*D', 'QQ==QQ==', 'QUJD====', 'QUJDRAé=', `${standard.slice(0, 8)}.${standard.slice(9)}`]) {
      expect(refusal(() => decodeBase64(bad)), bad).toMatch(/^validation_failed: image/);
    }
  });

  it('grows its output when more comes than was expected', () => {
    const bytes = randomBytes(10_000);
    const decoder = base64Decoder(10);
    decoder.write(bytes.toString('base64'));
    expect(decoder.end().equals(bytes)).toBe(true);
  });
});
