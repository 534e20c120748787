import { DomainError } from '../../domain/errors.ts';

const notBase64 = () => new DomainError('validation_failed', 'image is not valid base64', { details: ['body.image must be base64 or a base64 data URL'] });
const dataUrlNotBase64 = () => new DomainError('validation_failed', 'image: a data URL must be base64-encoded', { details: ['body.image must be a base64 data URL'] });

/** A data URL's header (`data:image/png;base64,`) longer than this is refused: no media type comes near it. */
const MAX_HEADER_CHARS = 1024;
const DATA_URL = /^data:([^;,]*)(;[^,]*)?,/i;
const BODY_CHARS = /^[A-Za-z0-9+/_\s-]*$/;
const WHITESPACE = /\s/;

/**
 * `type=base64` image text decoded as it arrives, chunk by chunk, so an upload is never held as
 * text (a 50 MB photo is 67 MB of base64, and a JSON parser would hold it twice over). Accepts
 * what Node's decoder reads — bare base64 or a base64 data URL, the standard or url-safe
 * alphabet, whitespace anywhere, up to two `=` at the end — and refuses any other character
 * (Node's decoder would skip it silently, turning a corrupt upload into other bytes).
 *
 * `expectedBytes`: the decoded size the caller expects at most (the body's length × ¾), so the
 * output is allocated once; it grows if more comes.
 */
export const base64Decoder = (expectedBytes = 0) => {
  let out = Buffer.allocUnsafe(Math.max(0, Math.ceil(expectedBytes)));
  let written = 0;
  /** Leading text kept until it is known whether it starts a data URL. */
  let head: string | null = '';
  /** Significant characters short of a group of four, decoded with the next chunk. */
  let carry = '';
  /** `=` seen: only whitespace and a second `=` may follow. */
  let padding = 0;
  /** Any character but whitespace seen (a blank value is no image). */
  let significant = false;

  const ensure = (bytes: number) => {
    if (written + bytes <= out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(written + bytes, out.length * 2, 1024));
    out.copy(grown, 0, 0, written);
    out = grown;
  };

  const decode = (text: string) => {
    const usable = text.length - (text.length % 4);
    carry = text.slice(usable);
    if (usable === 0) return;
    ensure((usable / 4) * 3);
    written += out.write(usable === text.length ? text : text.slice(0, usable), written, 'base64');
  };

  const body = (chunk: string) => {
    const at = padding > 0 ? 0 : chunk.indexOf('=');
    const data = at < 0 ? chunk : chunk.slice(0, at);
    if (!BODY_CHARS.test(data)) throw notBase64();
    if (at >= 0) {
      for (const char of chunk.slice(at)) {
        if (char === '=') padding += 1;
        else if (!WHITESPACE.test(char)) throw notBase64();
      }
      if (padding > 2) throw notBase64();
    }
    const significant = WHITESPACE.test(data) ? data.replace(/\s+/g, '') : data;
    if (significant.length > 0) decode(carry + significant);
  };

  /** The leading text, once it is known whether it is a data URL's header. */
  const start = (text: string) => {
    const trimmed = text.trimStart();
    const dataUrl = DATA_URL.exec(trimmed);
    if (dataUrl) {
      if (!/;base64/i.test(dataUrl[2] ?? '')) throw dataUrlNotBase64();
      return body(trimmed.slice(dataUrl[0].length));
    }
    body(trimmed);
  };

  return {
    write(chunk: string): void {
      if (!significant && /\S/.test(chunk)) significant = true;
      if (head === null) return body(chunk);
      head += chunk;
      const trimmed = head.trimStart();
      // Undecided while the text could still become a data URL's header.
      if (trimmed.length < 5 && 'data:'.startsWith(trimmed.toLowerCase())) return;
      if (/^data:/i.test(trimmed) && !trimmed.includes(',') && trimmed.length <= MAX_HEADER_CHARS) return;
      const text = head;
      head = null;
      start(text);
    },
    /** Whether any character but whitespace came. */
    significant: (): boolean => significant,
    /** The bytes decoded; the leftover characters decoded as Node does (two or three give bytes, one nothing). */
    end(): Buffer {
      if (head !== null) {
        const text = head;
        head = null;
        start(text);
      }
      if (carry.length > 0) {
        ensure(3);
        written += out.write(carry, written, 'base64');
        carry = '';
      }
      return out.subarray(0, written);
    },
  };
};

/** Decodes a whole `type=base64` value (a data URL or bare base64) at once. */
export const decodeBase64 = (value: string): Buffer => {
  const decoder = base64Decoder((value.length / 4) * 3);
  decoder.write(value);
  return decoder.end();
};
