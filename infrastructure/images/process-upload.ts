/**
 * From uploaded bytes to a checked, stored-ready image: the type is decided from the bytes
 * (file-type), never from the client's Content-Type or file name; polyglots, empty, truncated and
 * corrupt files and pixel bombs are refused with precise codes; then sharp (libvips, on its own
 * thread pool, off the event loop) makes the sizes an upload answers with (`full`, `med`). The
 * smaller ones (`small`, `thumb`) are derived from `med` after the answer, by the image-sizes
 * processor (`deriveSmallSizes`).
 *
 * Formats: JPEG, PNG, GIF, WebP — TheCatAPI's. AVIF and HEIC are refused (415): sharp's prebuilt
 * libvips cannot decode HEIC (patent-encumbered HEVC), and the models and browsers behind the
 * `url` handle the four formats everywhere.
 */
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';
import { fileTypeFromBuffer } from 'file-type';
import { DomainError } from '../../domain/errors.ts';
import { MIME_OF, type DeferredSize, type ImageFormat, type ImageSize, type UploadSize } from '../../domain/images/image.ts';
import { looksTruncated, polyglotReason } from './polyglot.ts';
import { BYTES_PER_PIXEL, decodeCost, MAX_WHOLE_DECODE_PIXELS, tooLargeToDecodeWhole, tooLargeToReencodeWhole } from './decode-cost.ts';
import { planClean } from './clean-photo.ts';
import { servableAsIs } from './markup.ts';

// Every upload is new: libvips' operation cache (50 MB by default, per process) would only hold memory.
sharp.cache(false);

/** Largest image accepted, in pixels (width × height) — read from the header before decoding. */
export const MAX_INPUT_PIXELS = 50_000_000;

/**
 * The memory decoding uploads may hold at once (the process's upload budget, http/upload-budget.ts):
 * an upload waits, in arrival order, until its decoding cost fits beside the ones under way. One
 * is always let in, so any accepted image can be decoded.
 */
export type DecodeMemory = { acquire(bytes: number): Promise<() => void> };

/**
 * Images of at most this many pixels have `med` made beside the header read: one wait on the
 * thread pool instead of two in a row, most of a small upload's time in a busy process. Whatever a
 * file's header claims, that decode holds at most QUICK_MED_PIXELS × 6 bytes (24 MB), its share of
 * the decode budget taken first: libvips refuses to decode a larger image for it (its pixel limit,
 * read from the same header).
 */
export const QUICK_MED_PIXELS = 4_000_000;

/** Longest side of each derived size (`full` keeps the stored size). */
export const SIZE_BOUNDS: Record<Exclude<ImageSize, 'full'>, number> = { thumb: 150, small: 320, med: 640 };

/** The formats accepted, by the media type the bytes are sniffed as. */
const FORMATS: Record<string, { format: ImageFormat; mime: string }> = Object.fromEntries(
  (Object.entries(MIME_OF) as [ImageFormat, string][]).map(([format, mime]) => [mime, { format, mime }]),
);

export type ProcessedImage = {
  format: ImageFormat;
  mime: string;
  width: number;
  height: number;
  original: Buffer;
  sizes: Record<UploadSize, Buffer>;
};

const decodeError = (error: unknown): DomainError => {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit|exceeds pixel/i.test(message)) return new DomainError('image_too_many_pixels', `the image has more than ${MAX_INPUT_PIXELS} pixels`);
  if (/truncat|premature end|unexpected end|not enough data|out of data|short read|end of (file|stream)|read error/i.test(message)) {
    return new DomainError('image_truncated', 'the image data is truncated');
  }
  return new DomainError('image_corrupt', 'the image cannot be decoded');
};

/** Decides the type from the bytes; refuses what is not one of the four formats. */
export const detectFormat = async (bytes: Buffer): Promise<{ format: ImageFormat; mime: string }> => {
  if (bytes.length === 0) throw new DomainError('image_empty', 'the uploaded file is empty');
  const detected = await fileTypeFromBuffer(bytes);
  const known = detected ? FORMATS[detected.mime] : undefined;
  if (!known) {
    throw new DomainError(
      'unsupported_media_type',
      `unsupported image type${detected ? ` ${detected.mime}` : ''}: upload JPEG, PNG, GIF or WebP`,
    );
  }
  return known;
};

/**
 * Encodes in the upload's format. At full size a JPEG is written without optimised Huffman tables:
 * optimising them buffers every coefficient of the picture (≈ 6.6 bytes a pixel: +307 MiB for a
 * 49-megapixel photo, against +32 MiB streamed) for a file ≈ 5 % smaller, and takes twice as long.
 */
const encode = (pipeline: Sharp, format: ImageFormat, { fullSize = false } = {}): Sharp =>
  format === 'jpg'
    ? pipeline.jpeg({ quality: 85, mozjpeg: false, optimiseCoding: !fullSize })
    : format === 'png'
      ? pipeline.png()
      : format === 'webp'
        ? pipeline.webp({ quality: 85 })
        : pipeline.gif();

/**
 * Checks and decodes the upload and makes its sizes. `resize` fits the stored image inside the
 * given width/height (never enlarging). Metadata (EXIF, GPS) is not carried into the derived sizes.
 */
export const processUpload = async (
  bytes: Buffer,
  resize: { width?: number; height?: number } = {},
  memory?: DecodeMemory,
): Promise<ProcessedImage> => {
  const { format, mime } = await detectFormat(bytes);
  const polyglot = polyglotReason(bytes, format);
  if (polyglot) throw new DomainError('image_polyglot', `the file is not only an image: ${polyglot}`);
  if (looksTruncated(bytes, format)) throw new DomainError('image_truncated', `the ${format} data is truncated`);
  const options: SharpOptions = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'truncated', animated: false };
  const medOf = (source: Buffer, limitInputPixels = MAX_INPUT_PIXELS) =>
    encode(
      sharp(source, { ...options, limitInputPixels }).rotate().resize({ width: SIZE_BOUNDS.med, height: SIZE_BOUNDS.med, fit: 'inside', withoutEnlargement: true }),
      format,
    ).toBuffer();
  // `med` is made from the upload's bytes unless the stored image is resized or a GIF (made from
  // `full` then). Of an image of at most QUICK_MED_PIXELS it is made beside the header read, in
  // its share of the decode budget (see QUICK_MED_PIXELS); of a larger one, libvips refuses that
  // decode from the header, and `med` is made once the header has told what it will cost.
  const medFromBytes = format !== 'gif' && !resize.width && !resize.height;
  let quickMed: Promise<{ med: Buffer } | { error: unknown }> | null = null;
  if (medFromBytes) {
    const share = memory ? await memory.acquire(QUICK_MED_PIXELS * BYTES_PER_PIXEL.decodedWhole) : () => undefined;
    quickMed = medOf(bytes, QUICK_MED_PIXELS).then(
      (med) => ({ med }),
      (error: unknown) => ({ error }),
    );
    void quickMed.finally(share);
  }
  // The header (nothing decoded): what decoding the image will cost decides whether it is taken
  // and when its decoding starts.
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch (error) {
    // nothing of the upload's work goes on after its answer: the quick decode, if any, ends first
    if (quickMed) await quickMed;
    throw decodeError(error);
  }
  const quick = quickMed ? await quickMed : null;
  if (!meta.width || !meta.height) throw new DomainError('image_corrupt', 'the image has no dimensions');
  if (meta.width * meta.height > MAX_INPUT_PIXELS) {
    throw new DomainError('image_too_many_pixels', `the image is ${meta.width}×${meta.height}: more than ${MAX_INPUT_PIXELS} pixels`);
  }
  if (tooLargeToDecodeWhole(meta)) {
    const kind = format === 'gif' ? 'a GIF' : format === 'png' ? 'an interlaced PNG' : 'a progressive JPEG';
    throw new DomainError(
      'image_too_many_pixels',
      `the image is ${meta.width}×${meta.height}: ${kind} is decoded whole, so it may have at most ${MAX_WHOLE_DECODE_PIXELS} pixels (4096×4096); send it smaller, or as a baseline JPEG or non-interlaced PNG`,
    );
  }
  // `full` is kept without a decode when it can be (keptWithoutDecode); otherwise re-encoded from
  // its pixels without its metadata (GPS, comments, markup never reach the public url),
  // auto-rotated and resized.
  const resized = Boolean(resize.width || resize.height);
  const kept = keptWithoutDecode(bytes, format, meta, resized);
  if (!kept && tooLargeToReencodeWhole(format, pixelsWritten(meta, resize))) {
    throw new DomainError(
      'image_too_many_pixels',
      `the image is ${meta.width}×${meta.height}: a WebP that has to be re-encoded (turned by its EXIF, animated, resized, or holding markup) is encoded whole, so it may come to at most ${MAX_WHOLE_DECODE_PIXELS} pixels (4096×4096); send it upright and still, smaller, or as a JPEG or PNG`,
    );
  }
  // `med` in one pipeline (decode, resize, encode; shrink-on-load makes the decode cheap for JPEG
  // and WebP). It reads the whole file, so a truncated or corrupt one fails here. Made before any
  // re-encode of `full`, so the two never hold their pixels at once.
  let medFromUpload: Buffer | null = quick && 'med' in quick ? quick.med : null;
  if (quick && 'error' in quick && meta.width * meta.height <= QUICK_MED_PIXELS) throw decodeError(quick.error);
  const cost = medFromUpload && kept ? 0 : decodeCost(meta, { reencodesFull: !kept });
  const release = memory && cost > 0 ? await memory.acquire(cost) : () => undefined;
  try {
    if (medFromBytes && !medFromUpload) medFromUpload = await medOf(bytes);
    let full: { data: Buffer; width: number; height: number };
    if (kept) {
      full = { data: kept, width: meta.width, height: meta.height };
    } else {
      const fullPipeline = sharp(bytes, options).rotate();
      if (resized) fullPipeline.resize({ width: resize.width, height: resize.height, fit: 'inside', withoutEnlargement: true });
      const encoded = await encode(fullPipeline, format, { fullSize: true }).toBuffer({ resolveWithObject: true });
      full = { data: encoded.data, width: encoded.info.width, height: encoded.info.height };
    }
    const med = medFromUpload ?? (await medOf(full.data));
    const sizes = { full: full.data, med };
    return { format, mime, width: full.width, height: full.height, original: bytes, sizes };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw decodeError(error);
  } finally {
    release();
  }
};

/**
 * `small` and `thumb` from `med` (already upright and without metadata): one decode at the
 * `small` size (a JPEG's shrink-on-load halves 640 px for free), `thumb` from that.
 */
export const deriveSmallSizes = async (med: Buffer, format: ImageFormat): Promise<Record<DeferredSize, Buffer>> => {
  const options: SharpOptions = { limitInputPixels: MAX_INPUT_PIXELS, animated: false };
  const bound = (side: number) => ({ width: side, height: side, fit: 'inside' as const, withoutEnlargement: true });
  const decoded = await sharp(med, options).resize(bound(SIZE_BOUNDS.small)).raw().toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: decoded.info.width, height: decoded.info.height, channels: decoded.info.channels } };
  const [small, thumb] = await Promise.all([
    encode(sharp(decoded.data, raw), format).toBuffer(),
    encode(sharp(decoded.data, raw).resize(bound(SIZE_BOUNDS.thumb)), format).toBuffer(),
  ]);
  return { small, thumb };
};

/** Upright, single-frame, and carrying no metadata that could say more than the pixels do. */
const isPlain = (meta: Metadata): meta is Metadata & { width: number; height: number } =>
  !meta.exif && !meta.xmp && !meta.iptc && !meta.comments?.length && (meta.orientation ?? 1) === 1 && (meta.pages ?? 1) === 1;

/**
 * `full` without a decode, or null when it is re-encoded: the uploaded bytes themselves when
 * nothing about them has to change — a still, upright, not resized JPEG, PNG or WebP without EXIF,
 * XMP, IPTC or text comments, without any segment that can carry text and without an HTML tag
 * anywhere in its bytes (markup.ts), so a clean file is neither decoded in full nor re-encoded (no
 * generation loss) — or such a WebP without its metadata chunks, stripped losslessly
 * (clean-photo.ts): libwebp re-encodes a whole picture at once (≈ 16 bytes a pixel, decode-cost.ts).
 */
const keptWithoutDecode = (bytes: Buffer, format: ImageFormat, meta: Metadata, resized: boolean): Buffer | null => {
  if (format === 'gif' || resized || (meta.orientation ?? 1) !== 1 || (meta.pages ?? 1) !== 1) return null;
  if (format === 'webp') {
    const plan = planClean(bytes, format, 1);
    return plan.how === 're-encode' ? null : plan.bytes;
  }
  return isPlain(meta) && servableAsIs(bytes, format) ? bytes : null;
};

/** The pixels of the image `full` is written as: upright, inside `resize` (never enlarged). */
const pixelsWritten = (meta: { width: number; height: number; orientation?: number }, resize: { width?: number; height?: number }): number => {
  const [width, height] = (meta.orientation ?? 1) >= 5 ? [meta.height, meta.width] : [meta.width, meta.height];
  const scale = Math.min(1, resize.width ? resize.width / width : 1, resize.height ? resize.height / height : 1);
  return Math.round(width * scale) * Math.round(height * scale);
};

/** Crops a box (fractions of the image) out of `bytes` and derives its sizes, in the same format. */
export const cropImage = async (
  bytes: Buffer,
  format: ImageFormat,
  box: { left: number; top: number; width: number; height: number },
): Promise<ProcessedImage> => {
  const meta = await sharp(bytes, { animated: false }).metadata();
  const W = meta.width ?? 1;
  const H = meta.height ?? 1;
  const left = Math.max(0, Math.min(W - 1, Math.round(box.left * W)));
  const top = Math.max(0, Math.min(H - 1, Math.round(box.top * H)));
  const width = Math.max(1, Math.min(W - left, Math.round(box.width * W)));
  const height = Math.max(1, Math.min(H - top, Math.round(box.height * H)));
  const cropped = await encode(sharp(bytes, { animated: false }).extract({ left, top, width, height }), format, { fullSize: true }).toBuffer();
  return processUpload(cropped);
};
