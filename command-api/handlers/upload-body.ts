import type { FastifyRequest } from 'fastify';
import { Value } from '@sinclair/typebox/value';
import { DomainError } from '../../domain/errors.ts';
import { MultipartFields, type UploadSyncJsonBody } from '../../contracts/image-uploads.ts';
import { UploadLimits } from '../../http/limits.ts';
import { breedIdsOf, type UploadInput } from './images.ts';
import { decodeBase64 } from '../uploads/base64-decoder.ts';

/** busboy's own errors (no boundary, a malformed part, a body that ends mid-part) are the client's: 400. */
const isMalformedMultipart = (error: unknown): boolean =>
  error instanceof Error && !('code' in error && typeof error.code === 'string' && error.code.startsWith('FST_')) &&
  /^(Multipart:|Malformed|Unexpected end of (form|multipart))|terminated early|unexpected end of multipart/i.test(error.message);

/** Runs `read` over the multipart body, turning busboy's parse errors into 400 validation_failed. */
const readingMultipart = async (read: () => Promise<void>): Promise<void> => {
  try {
    await read();
  } catch (error) {
    if (isMalformedMultipart(error)) {
      throw new DomainError('validation_failed', `malformed multipart body: ${(error as Error).message}`, { details: ['body is not a well-formed multipart/form-data body'] });
    }
    throw error;
  }
};

/**
 * One upload body, JSON or multipart, into the handler's input. A multipart `file` part is read
 * as it streams in and cut off past 50 MB (413, nothing buffered beyond the limit); text fields
 * are coerced from text and checked with the JSON body's rules.
 */
export const readUploadBody = async (request: FastifyRequest, autoCropDefault: boolean): Promise<UploadInput> => {
  let fields: UploadSyncJsonBody;
  let file = null as { bytes: Buffer; filename: string | null } | null;
  if (request.isMultipart()) {
    const raw: Record<string, string> = {};
    await readingMultipart(async () => {
      for await (const part of request.parts({ limits: { fileSize: UploadLimits.photoBytes, files: 1 } })) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || file) {
            part.file.resume();
            throw new DomainError('validation_failed', 'one file, in the part named `file`', { details: [`body.${part.fieldname} is not allowed: send one photo as \`file\``] });
          }
          file = { bytes: await part.toBuffer(), filename: part.filename || null };
        } else {
          raw[part.fieldname] = String(part.value);
        }
      }
    });
    const converted = Value.Convert(MultipartFields, raw) as Record<string, unknown>;
    const problems = [...Value.Errors(MultipartFields, converted)].map((error) => `body${error.path.replace(/\//g, '.')} ${error.message.toLowerCase()}`);
    if (problems.length > 0) throw new DomainError('validation_failed', 'invalid upload fields', { details: problems });
    fields = converted as UploadSyncJsonBody;
  } else {
    fields = (request.body ?? {}) as UploadSyncJsonBody;
  }
  const base64 = fields.type?.toLowerCase() === 'base64';
  let bytes: Buffer;
  let filename: string | null;
  if (base64 || (!file && fields.image !== undefined)) {
    if (fields.image === undefined) throw new DomainError('validation_failed', 'type=base64 needs `image`', { details: ['body.image is required with type=base64'] });
    // A JSON body's image was decoded as it streamed in (uploads/json-upload-body.ts); a multipart `image` field is decoded here.
    bytes = request.streamedImage ?? decodeBase64(fields.image);
    if (bytes.length > UploadLimits.photoBytes) throw new DomainError('payload_too_large', 'a photo may be at most 50 MB');
    filename = fields.original_filename ?? null;
  } else if (file) {
    bytes = file.bytes;
    filename = fields.original_filename ?? file.filename;
  } else {
    throw new DomainError('validation_failed', 'no image: send a multipart `file`, or type=base64 with `image`', {
      details: ['body.file is required (multipart), or type=base64 with body.image'],
    });
  }
  return {
    bytes,
    original_filename: filename,
    sub_id: fields.sub_id ?? null,
    breed_ids: breedIdsOf(fields.breed_ids),
    width: fields.width,
    height: fields.height,
    age_months: fields.age_months ?? null,
    auto_crop: fields.auto_crop ?? autoCropDefault,
  };
};
