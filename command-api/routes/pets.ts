import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AddPhotosFields,
  AddPhotosMultipart,
  AddVideoFields,
  AddVideoMultipart,
  CreatedPet,
  CreatePetBody,
  CreatePetMultipart,
  CreatePetMultipartFields,
  Pet,
  PetIdParams,
  PetMedia as PetMediaSchema,
  petMediaResource,
  petResource,
  UpdatePetBody,
} from '../../contracts/pets.ts';
import { errors, Success } from '../../contracts/common.ts';
import { DomainError } from '../../domain/errors.ts';
import type { LivePet, ProfileInput } from '../../domain/pets/decide.ts';
import type { PetMedia } from '../../domain/pets/pet.ts';
import { petAgeMonthsAt } from '../../domain/pets/rules.ts';
import { accountOf } from '../../http/auth.ts';
import { UploadLimits } from '../../http/limits.ts';
import type { UploadBudget } from '../../http/upload-budget.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../deps.ts';
import { addMedia, loadOwnedPet, mediaBlobKey, newMediaId, registerPet, removePet, updatePet } from '../handlers/pets.ts';
import { checkPhoto, type CheckedPhoto } from '../uploads/photo-check.ts';
import { multipartFields, parsePoses } from '../uploads/fields.ts';
import { receiveMultipart, sweepStaleUploads, type ReceivedFile } from '../uploads/receive.ts';
import { sniffFile, VIDEO_TYPES } from '../uploads/sniff.ts';
import { checkVideo } from '../uploads/video-check.ts';
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';

const PHOTO_FIELDS = ['images', 'images[]'] as const;

/** The Pet resource from the pet's state as the command just left it. */
export const petFromState = (pet: LivePet) =>
  petResource(
    pet.petId,
    pet.profile,
    [...pet.media.values()].map((media) => petMediaResource(media, pet.petId)),
    { created_at: pet.createdAt, updated_at: pet.updatedAt },
  );

type PhotoMeta = { age_years?: number; age_months?: number; description?: string; poses?: string };

/**
 * Checks every received photo (type, decodability) and turns it into a media record candidate.
 * Any bad file fails the whole request before anything is stored.
 */
const photoCandidates = async (
  memory: { bodies: UploadBudget; decoding?: UploadBudget },
  petId: string,
  files: ReceivedFile[],
  meta: PhotoMeta,
  petAgeMonths: number | null,
): Promise<{ item: PetMedia; file: ReceivedFile }[]> => {
  const poses = parsePoses(meta.poses, files.length);
  const given = meta.age_years !== undefined || meta.age_months !== undefined;
  const ageMonths = given ? (meta.age_years ?? 0) * 12 + (meta.age_months ?? 0) : petAgeMonths;
  const candidates: { item: PetMedia; file: ReceivedFile }[] = [];
  for (const [index, file] of files.entries()) {
    // Read into memory one at a time, once the process's upload memory has room for it (the read and the cleaned copy).
    const give = await memory.bodies.acquire(2 * file.size);
    let photo: CheckedPhoto;
    try {
      photo = await checkPhoto(file.path, file.size, `file ${index}${file.filename ? ` (${file.filename})` : ''}`, memory.decoding);
    } finally {
      give();
    }
    // What is stored is the cleaned photo (no comments or metadata): it replaces the received file,
    // so one photo at a time is held in memory. content_hash stays the upload's (identical uploads
    // find the existing record).
    const storedSize = photo.bytes.length;
    if (photo.changed) await writeFile(file.path, photo.bytes);
    const mediaId = newMediaId();
    candidates.push({
      file,
      item: {
        media_id: mediaId,
        kind: 'photo',
        blob_key: mediaBlobKey(petId, mediaId),
        content_hash: file.sha256,
        mime_type: photo.mime,
        size_bytes: storedSize,
        width: photo.width,
        height: photo.height,
        pose: poses.get(index) ?? null,
        age_years: meta.age_years ?? null,
        age_months: meta.age_months ?? null,
        pet_age_months: ageMonths,
        description: meta.description ?? null,
        original_filename: file.filename,
        duration_seconds: null,
        video_codec: null,
        container: null,
        review_status: 'pending',
        created_at: new Date().toISOString(),
      },
    });
  }
  return candidates;
};

/** Runs `work`, then removes the upload's temporary files — before the answer is sent. */
const thenCleanUp = async <T>(cleanup: () => Promise<void>, work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } finally {
    await cleanup();
  }
};

const putFromFile = (blobs: BlobStore, byKey: Map<string, ReceivedFile>) => async (item: PetMedia) => {
  const file = byKey.get(item.blob_key);
  if (!file) throw new Error(`no received file for ${item.blob_key}`);
  await blobs.put(item.blob_key, createReadStream(file.path), item.mime_type);
};

export const petCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const tempDir = deps.uploadTempDir ?? join(tmpdir(), 'animal-data-uploads');
    const memory = { bodies: deps.uploadMemory, decoding: deps.decodeMemory };
    // Leftovers of a process that died mid-upload (never an upload still running: 1 h ≫ a request's time).
    void sweepStaleUploads(tempDir, 3600_000).catch(() => undefined);
    const blobStore = (): BlobStore => {
      if (!deps.blobs) throw new DomainError('not_ready', 'this process has no blob store: uploads are not available');
      return deps.blobs;
    };

    /** Stores checked photos on the pet (dedupe, 24-hour rule, expected revision). */
    const storePhotos = async (petId: string, accountId: string, candidates: { item: PetMedia; file: ReceivedFile }[], request: Parameters<typeof contextOf>[0]) => {
      const blobs = blobStore();
      const byKey = new Map(candidates.map(({ item, file }) => [item.blob_key, file]));
      return addMedia(deps.eventStore, blobs, petId, accountId, 'photo', candidates.map(({ item }) => item), putFromFile(blobs, byKey), contextOf(request));
    };

    app.post(
      '/pets',
      {
        schema: {
          tags: ['pets'],
          summary: 'Register a pet (JSON, or multipart with up to 20 photos in `images` and their `poses`)',
          body: { content: { 'application/json': { schema: CreatePetBody }, 'multipart/form-data': { schema: CreatePetMultipart } } } as never,
          response: { 201: CreatedPet, ...errors(413, 415) },
        },
        config: { feature: 'pets', multipart: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        let input: ProfileInput;
        let photos: { files: ReceivedFile[]; meta: PhotoMeta; cleanup: () => Promise<void> } | null = null;
        if (request.isMultipart()) {
          const upload = await receiveMultipart(request, {
            tempDir,
            fileFields: PHOTO_FIELDS,
            maxFileBytes: UploadLimits.photoBytes,
            maxFiles: UploadLimits.filesPerRequest,
          });
          try {
            const fields = multipartFields<ProfileInput & { poses?: string }>(CreatePetMultipartFields, upload.fields);
            const { poses, ...profile } = fields;
            input = profile;
            photos = { files: upload.files, meta: { poses }, cleanup: upload.cleanup };
            if (poses !== undefined && upload.files.length === 0) parsePoses(poses, 0);
          } catch (error) {
            await upload.cleanup();
            throw error;
          }
        } else {
          input = (request.body ?? {}) as ProfileInput;
        }
        const answer = await thenCleanUp(photos?.cleanup ?? (async () => {}), async () => {
          // Every photo is checked before the pet is registered: a bad file stores nothing.
          const prepared = photos && photos.files.length > 0 ? await photoCandidates(memory, 'pending', photos.files, photos.meta, null) : [];
          const { registered, state, position } = await registerPet(deps.eventStore, account.id, input, contextOf(request));
          let finalState = state;
          let lastPosition = position;
          if (prepared.length > 0) {
            const ageMonths = petAgeMonthsAt(registered.profile, registered.registered_at);
            const candidates = prepared.map(({ item, file }) => ({
              file,
              item: { ...item, blob_key: mediaBlobKey(registered.pet_id, item.media_id), pet_age_months: ageMonths },
            }));
            const added = await storePhotos(registered.pet_id, account.id, candidates, request);
            finalState = added.state;
            lastPosition = added.position ?? lastPosition;
          }
          await recordWrite(deps, account.id, lastPosition, 'pets');
          return { message: 'SUCCESS' as const, ...petFromState(finalState as LivePet) };
        });
        // Sent after the temporary files are gone.
        return reply.code(201).send(answer);
      },
    );

    app.patch(
      '/pets/:petId',
      {
        schema: {
          tags: ['pets'],
          summary: 'Change fields of your pet (null clears one)',
          params: PetIdParams,
          body: UpdatePetBody,
          response: { 200: Pet, ...errors(404) },
        },
        config: { feature: 'pets' },
      },
      async (request) => {
        const account = accountOf(request);
        const { state, position } = await updatePet(deps.eventStore, request.params.petId, account.id, request.body as ProfileInput, contextOf(request));
        await recordWrite(deps, account.id, position, 'pets');
        return petFromState(state as LivePet);
      },
    );

    app.delete(
      '/pets/:petId',
      {
        schema: {
          tags: ['pets'],
          summary: 'Delete your pet with its photos and videos',
          params: PetIdParams,
          response: { 200: Success, ...errors(404) },
        },
        config: { feature: 'pets' },
      },
      async (request) => {
        const account = accountOf(request);
        const { position } = await removePet(deps.eventStore, blobStore(), request.params.petId, account.id, contextOf(request));
        await recordWrite(deps, account.id, position, 'pets');
        return { message: 'SUCCESS' as const };
      },
    );

    app.post(
      '/pets/:petId/images',
      {
        schema: {
          tags: ['pets'],
          summary: 'Add up to 20 photos to your pet (identical bytes answer the existing record; at most 100 new photos per pet in 24 hours)',
          params: PetIdParams,
          body: { content: { 'multipart/form-data': { schema: AddPhotosMultipart } } } as never,
          response: { 200: Type.Array(PetMediaSchema), 201: Type.Array(PetMediaSchema), ...errors(404, 413, 415) },
        },
        config: { feature: 'pets', multipart: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const petId = request.params.petId;
        const { pet } = await loadOwnedPet(deps.eventStore, petId, account.id);
        blobStore();
        const upload = await receiveMultipart(request, {
          tempDir,
          fileFields: PHOTO_FIELDS,
          maxFileBytes: UploadLimits.photoBytes,
          maxFiles: UploadLimits.filesPerRequest,
        });
        const added = await thenCleanUp(upload.cleanup, async () => {
          const meta = multipartFields<PhotoMeta>(AddPhotosFields, upload.fields);
          if (upload.files.length === 0) {
            throw new DomainError('validation_failed', 'no photo: send at least one file in `images`', { details: ['body.images must have at least one file'] });
          }
          const candidates = await photoCandidates(memory, petId, upload.files, meta, petAgeMonthsAt(pet.profile, new Date().toISOString()));
          return storePhotos(petId, account.id, candidates, request);
        });
        await recordWrite(deps, account.id, added.position, 'pets');
        return reply.code(added.position === null ? 200 : 201).send(added.records.map((record) => petMediaResource(record, petId)));
      },
    );

    app.post(
      '/pets/:petId/videos',
      {
        schema: {
          tags: ['pets'],
          summary: 'Add a video (field `file`: MP4, MOV, WebM, AVI, MPEG or 3GP, up to 200 MB) to your pet',
          params: PetIdParams,
          body: { content: { 'multipart/form-data': { schema: AddVideoMultipart } } } as never,
          response: { 200: PetMediaSchema, 201: PetMediaSchema, ...errors(404, 413, 415) },
        },
        config: { feature: 'pets', multipart: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const petId = request.params.petId;
        const { pet } = await loadOwnedPet(deps.eventStore, petId, account.id);
        const blobs = blobStore();
        const upload = await receiveMultipart(request, { tempDir, fileFields: ['file'], maxFileBytes: UploadLimits.videoBytes, maxFiles: 1 });
        const added = await thenCleanUp(upload.cleanup, async () => {
          const meta = multipartFields<Omit<PhotoMeta, 'poses'>>(AddVideoFields, upload.fields);
          const file = upload.files[0];
          if (!file) throw new DomainError('validation_failed', 'no video: send the file in the `file` field', { details: ['body.file is required'] });
          if (file.size === 0) throw new DomainError('invalid_media', 'the video file is empty');
          const type = await sniffFile(file.path);
          const video = type ? VIDEO_TYPES[type.mime] : undefined;
          if (!type || !video) {
            throw new DomainError(
              'unsupported_media_type',
              `the file is ${type ? type.mime : 'not a recognised video'}: videos must be MP4, MOV, WebM, AVI, MPEG or 3GP`,
            );
          }
          const probe = await checkVideo(file.path, video);
          const { container, mime } = video;
          const given = meta.age_years !== undefined || meta.age_months !== undefined;
          const mediaId = newMediaId();
          const item: PetMedia = {
            media_id: mediaId,
            kind: 'video',
            blob_key: mediaBlobKey(petId, mediaId),
            content_hash: file.sha256,
            mime_type: mime,
            size_bytes: file.size,
            width: probe.width,
            height: probe.height,
            pose: null,
            age_years: meta.age_years ?? null,
            age_months: meta.age_months ?? null,
            pet_age_months: given ? (meta.age_years ?? 0) * 12 + (meta.age_months ?? 0) : petAgeMonthsAt(pet.profile, new Date().toISOString()),
            description: meta.description ?? null,
            original_filename: file.filename,
            duration_seconds: probe.durationSeconds,
            video_codec: probe.codec,
            container,
            review_status: 'pending',
            created_at: new Date().toISOString(),
          };
          return addMedia(
            deps.eventStore,
            blobs,
            petId,
            account.id,
            'video',
            [item],
            putFromFile(blobs, new Map([[item.blob_key, file]])),
            contextOf(request),
          );
        });
        await recordWrite(deps, account.id, added.position, 'pets');
        return reply.code(added.position === null ? 200 : 201).send(petMediaResource(added.records[0], petId));
      },
    );
  };
