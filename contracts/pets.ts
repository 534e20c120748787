import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CommaList, CountryCode, SubId } from './common.ts';
import { styleA } from './paging.ts';
import { POSES } from '../domain/pets/pet.ts';

/** Pet and media ids: random, URL-safe. */
export const PetId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const PetIdParams = Type.Object({ petId: PetId });

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

export const Pose = Type.Union(
  POSES.map((pose) => Type.Literal(pose)),
  { description: 'front, side, back, top, face or other' },
);

export const PetMedia = Type.Object(
  {
    id: Type.String(),
    pet_id: Type.String(),
    kind: Type.Union([Type.Literal('photo'), Type.Literal('video'), Type.Literal('portrait')]),
    width: Nullable(Type.Number()),
    height: Nullable(Type.Number()),
    pose: Nullable(Type.String()),
    pet_age_months: Nullable(Type.Number({ description: "the pet's age when the media was taken" })),
    age_years: Nullable(Type.Number()),
    age_months: Nullable(Type.Number()),
    description: Nullable(Type.String()),
    portrait_style_id: Nullable(Type.String()),
    mime_type: Type.String(),
    review_status: Type.Union([Type.Literal('pending'), Type.Literal('clean'), Type.Literal('rejected')]),
    upload_error: Type.Boolean(),
    size_bytes: Type.Integer(),
    original_filename: Nullable(Type.String()),
    duration_seconds: Nullable(Type.Number({ description: 'videos: length in seconds (ffprobe)' })),
    video_codec: Nullable(Type.String({ description: 'videos: codec of the first video stream' })),
    created_at: DateTime,
  },
  { description: 'A photo, video or generated portrait of a pet' },
);
export type PetMedia = Static<typeof PetMedia>;

/** The analysis results the pet record carries (null until the analysis has run). */
export const PetAnalysisFields = {
  body_condition_score_reasons: Nullable(Type.String()),
  body_condition_score_timestamp: Nullable(DateTime),
  estimated_age_months: Nullable(Type.Number()),
  estimated_age_reasons: Nullable(Type.String()),
  estimated_age_timestamp: Nullable(DateTime),
  genealogy_result: Nullable(Type.Object({}, { additionalProperties: true })),
  genealogy_timestamp: Nullable(DateTime),
  muscle_wasting_risk: Nullable(Type.Boolean()),
  muscle_condition_reasons: Nullable(Type.String()),
  muscle_condition_timestamp: Nullable(DateTime),
  estimated_weight_kg: Nullable(Type.Number()),
  estimated_size_classification: Nullable(Type.String()),
  estimated_weight_reasons: Nullable(Type.String()),
  estimated_weight_timestamp: Nullable(DateTime),
};

export const Pet = Type.Object(
  {
    id: Type.String(),
    name: Nullable(Type.String()),
    breed_id: Nullable(Type.String()),
    species_id: Nullable(Type.String()),
    description: Nullable(Type.String()),
    microchip_id: Nullable(Type.String()),
    sub_id: Nullable(Type.String()),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    date_of_birth: Nullable(Type.String({ format: 'date' })),
    age_years: Nullable(Type.Integer({ description: 'age as given instead of a date of birth, as of age_recorded_at' })),
    age_months: Nullable(Type.Integer()),
    age_recorded_at: Nullable(DateTime),
    body_condition_score: Nullable(Type.Number({ minimum: 1, maximum: 9 })),
    ...PetAnalysisFields,
    images: Type.Array(PetMedia),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { description: 'A pet profile with its media records' },
);
export type Pet = Static<typeof Pet>;

const profileFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  breed_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'a breed id (GET /v1/breeds)' }),
  species_id: Type.Union([Type.Literal('1'), Type.Literal('2'), Type.Literal('3')], { description: '1 cat, 2 dog, 3 horse; taken from the breed when omitted' }),
  description: Type.String({ maxLength: 2000 }),
  microchip_id: Type.String({
    minLength: 1,
    maxLength: 32,
    description: '15 digits (ISO 11784/11785); also 10 hexadecimal characters (older 125 kHz chips) or 9 digits (AVID). Spaces, dots and dashes are ignored',
  }),
  sub_id: SubId,
  country: CountryCode,
  date_of_birth: Type.String({ format: 'date', description: 'ISO date; or give age_years with age_months instead' }),
  age_years: Type.Integer({ minimum: 0, maximum: 100 }),
  age_months: Type.Integer({ minimum: 0, maximum: 11 }),
  body_condition_score: Type.Integer({ minimum: 1, maximum: 9 }),
};

export const CreatePetBody = Type.Partial(Type.Object(profileFields), { additionalProperties: false });
export type CreatePetBody = Static<typeof CreatePetBody>;

const nullableProfileFields = {
  name: Nullable(profileFields.name),
  breed_id: Nullable(profileFields.breed_id),
  species_id: Nullable(profileFields.species_id),
  description: Nullable(profileFields.description),
  microchip_id: Nullable(profileFields.microchip_id),
  sub_id: Nullable(profileFields.sub_id),
  country: Nullable(profileFields.country),
  date_of_birth: Nullable(profileFields.date_of_birth),
  age_years: Nullable(profileFields.age_years),
  age_months: Nullable(profileFields.age_months),
  body_condition_score: Nullable(profileFields.body_condition_score),
};
export const UpdatePetBody = Type.Partial(Type.Object(nullableProfileFields), {
  additionalProperties: false,
  description: 'Fields to change; null clears one',
});
export type UpdatePetBody = Static<typeof UpdatePetBody>;

const Binary = Type.String({ format: 'binary' });
const PosesField = Type.String({
  maxLength: 2000,
  description: 'JSON object mapping the 0-based index of a file to its pose (front, side, back, top, face, other), e.g. {"0":"side"}',
});

/** The text fields of `POST /pets` as multipart (validated with the same rules, numbers from text). */
export const CreatePetMultipartFields = Type.Object(
  {
    ...Type.Partial(Type.Object(profileFields)).properties,
    poses: Type.Optional(PosesField),
  },
  { additionalProperties: false },
);

export const CreatePetMultipart = Type.Object({
  ...CreatePetMultipartFields.properties,
  images: Type.Optional(Type.Array(Binary, { maxItems: 20, description: 'photos (JPEG, PNG, WebP, GIF), at most 20, each ≤ 50 MB' })),
});

export const AddPhotosFields = Type.Object(
  {
    poses: Type.Optional(PosesField),
    age_years: Type.Optional(profileFields.age_years),
    age_months: Type.Optional(profileFields.age_months),
    description: Type.Optional(profileFields.description),
  },
  { additionalProperties: false },
);
export const AddPhotosMultipart = Type.Object({
  ...AddPhotosFields.properties,
  images: Type.Array(Binary, { minItems: 1, maxItems: 20, description: 'photos (JPEG, PNG, WebP, GIF), at most 20, each ≤ 50 MB' }),
});

export const AddVideoFields = Type.Object(
  {
    age_years: Type.Optional(profileFields.age_years),
    age_months: Type.Optional(profileFields.age_months),
    description: Type.Optional(profileFields.description),
  },
  { additionalProperties: false },
);
export const AddVideoMultipart = Type.Object(
  { ...AddVideoFields.properties, file: Binary },
  { description: 'field `file`: MP4, MOV, WebM, AVI, MPEG or 3GP, at most 200 MB' },
);

export const CreatedPet = Type.Composite([Type.Object({ message: Type.Literal('SUCCESS') }), Type.Omit(Pet, [])], {
  description: 'The pet just registered',
});

export const ListPetsQuery = Type.Object({
  ...styleA({ limit: 10, order: 'ASC' }),
  breed_id: Type.Optional(Type.String({ maxLength: 64 })),
  sub_id: Type.Optional(SubId),
  species_id: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 cat, 2 dog, 3 horse' })),
  breed_groups: Type.Optional(CommaList('only pets of breeds in these groups (case-insensitive)')),
  exclude_breed_groups: Type.Optional(CommaList('no pets of breeds in these groups')),
  lang: Type.Optional(Type.String({ maxLength: 10 })),
});
export type ListPetsQuery = Static<typeof ListPetsQuery>;

/** A media record as the API shows it. */
export const petMediaResource = (media: {
  media_id: string;
  kind: 'photo' | 'video' | 'portrait';
  width: number | null;
  height: number | null;
  pose: string | null;
  pet_age_months: number | null;
  age_years: number | null;
  age_months: number | null;
  description: string | null;
  mime_type: string;
  review_status: 'pending' | 'clean' | 'rejected';
  size_bytes: number;
  original_filename: string | null;
  duration_seconds: number | null;
  video_codec: string | null;
  created_at: string;
  portrait_style_id?: string | null;
  upload_error?: boolean;
}, petId: string): PetMedia => ({
  id: media.media_id,
  pet_id: petId,
  kind: media.kind,
  width: media.width,
  height: media.height,
  pose: media.pose,
  pet_age_months: media.pet_age_months,
  age_years: media.age_years,
  age_months: media.age_months,
  description: media.description,
  portrait_style_id: media.portrait_style_id ?? null,
  mime_type: media.mime_type,
  review_status: media.review_status,
  upload_error: media.upload_error ?? false,
  size_bytes: media.size_bytes,
  original_filename: media.original_filename,
  duration_seconds: media.duration_seconds,
  video_codec: media.video_codec,
  created_at: media.created_at,
});

type PetFieldsIn = Omit<Pet, 'id' | 'images' | 'created_at' | 'updated_at' | keyof typeof PetAnalysisFields> &
  Partial<Pick<Pet, keyof typeof PetAnalysisFields>>;

/** The Pet resource from its profile, analysis fields (null when absent) and media records. */
export const petResource = (id: string, fields: PetFieldsIn, images: PetMedia[], times: { created_at: string; updated_at: string }): Pet => ({
  id,
  name: fields.name,
  breed_id: fields.breed_id,
  species_id: fields.species_id,
  description: fields.description,
  microchip_id: fields.microchip_id,
  sub_id: fields.sub_id,
  country: fields.country,
  date_of_birth: fields.date_of_birth,
  age_years: fields.age_years,
  age_months: fields.age_months,
  age_recorded_at: fields.age_recorded_at,
  body_condition_score: fields.body_condition_score,
  body_condition_score_reasons: fields.body_condition_score_reasons ?? null,
  body_condition_score_timestamp: fields.body_condition_score_timestamp ?? null,
  estimated_age_months: fields.estimated_age_months ?? null,
  estimated_age_reasons: fields.estimated_age_reasons ?? null,
  estimated_age_timestamp: fields.estimated_age_timestamp ?? null,
  genealogy_result: fields.genealogy_result ?? null,
  genealogy_timestamp: fields.genealogy_timestamp ?? null,
  muscle_wasting_risk: fields.muscle_wasting_risk ?? null,
  muscle_condition_reasons: fields.muscle_condition_reasons ?? null,
  muscle_condition_timestamp: fields.muscle_condition_timestamp ?? null,
  estimated_weight_kg: fields.estimated_weight_kg ?? null,
  estimated_size_classification: fields.estimated_size_classification ?? null,
  estimated_weight_reasons: fields.estimated_weight_reasons ?? null,
  estimated_weight_timestamp: fields.estimated_weight_timestamp ?? null,
  images,
  created_at: times.created_at,
  updated_at: times.updated_at,
});
