import type { TObject } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { DomainError } from '../../domain/errors.ts';
import { POSES, type Pose } from '../../domain/pets/pet.ts';
import { describeValidationErrors, validatorCompiler } from '../../http/validation.ts';

const compiled = new WeakMap<TObject, (value: unknown) => boolean>();

/**
 * The text fields of a multipart body, checked against the same TypeBox schema as JSON would be,
 * with numbers read from their text (`age_months=12` → 400, `age_years=abc` → 400).
 */
export const multipartFields = <T>(schema: TObject, fields: Record<string, string>): T => {
  let validate = compiled.get(schema) as ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };
  if (!validate) {
    validate = validatorCompiler({ schema, method: 'POST', url: '', httpPart: 'querystring' }) as never;
    compiled.set(schema, validate);
  }
  const value: Record<string, unknown> = { ...fields };
  if (!validate(value)) {
    const problems = describeValidationErrors(validate.errors ?? [], 'body');
    throw new DomainError('validation_failed', problems.join('; '), { details: problems });
  }
  return value as T;
};

/** `poses`: a JSON object from 0-based file index to a pose name; every index must name a file. */
export const parsePoses = (text: string | undefined, fileCount: number): Map<number, Pose> => {
  const poses = new Map<number, Pose>();
  if (text === undefined || text.trim() === '') return poses;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('validation_failed', 'poses must be a JSON object', { details: ['body.poses must be a JSON object such as {"0":"side"}'] });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new DomainError('validation_failed', 'poses must be a JSON object', { details: ['body.poses must be a JSON object such as {"0":"side"}'] });
  }
  const problems: string[] = [];
  for (const [key, pose] of Object.entries(parsed as Record<string, unknown>)) {
    const index = /^(0|[1-9]\d{0,2})$/.test(key) ? Number(key) : NaN;
    if (!Number.isInteger(index) || index >= fileCount) problems.push(`body.poses: '${key}' is not the index of a file (0 to ${fileCount - 1})`);
    else if (typeof pose !== 'string' || !(POSES as readonly string[]).includes(pose)) {
      problems.push(`body.poses.${key} must be one of: ${POSES.join(', ')}`);
    } else poses.set(index, pose as Pose);
  }
  if (problems.length > 0) throw new DomainError('validation_failed', problems.join('; '), { details: problems });
  return poses;
};
