import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Two validators: JSON bodies are validated strictly (a string is not a number), while query
 * strings, path parameters and headers are coerced from text. Both report every problem at once
 * (allErrors), so a 400 lists one message per problem.
 */
const makeAjv = (coerce: boolean) => {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
};

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

/**
 * A multipart/form-data body schema documents the parts (OpenAPI); the route itself reads and
 * checks them while they stream in (Fastify never parses such a body), so it validates nothing here.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart, contentType }) =>
  httpPart === 'body' && contentType === 'multipart/form-data'
    ? () => true
    : ((httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>);

export const addSharedSchema = (schema: { $id?: string }): void => {
  for (const ajv of [bodyAjv, textAjv]) if (schema.$id && !ajv.getSchema(schema.$id)) ajv.addSchema(schema);
};

const partName: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** One readable line per ajv problem: `query.limit must be <= 100`. */
export const describeValidationErrors = (errors: ErrorObject[], context: string | undefined): string[] => {
  const part = partName[context ?? 'body'] ?? context ?? 'body';
  const lines = errors
    .filter((error) => error.keyword !== 'anyOf' || errors.length === 1)
    .map((error) => {
      const path = error.instancePath ? `${part}${error.instancePath.replace(/\//g, '.')}` : part;
      switch (error.keyword) {
        case 'required':
          return `${part}${error.instancePath.replace(/\//g, '.')}.${(error.params as { missingProperty: string }).missingProperty} is required`;
        case 'additionalProperties':
          return `${path}.${(error.params as { additionalProperty: string }).additionalProperty} is not allowed`;
        case 'enum':
          return `${path} must be one of: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
        case 'const':
          return `${path} must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
        default:
          return `${path} ${error.message ?? 'is invalid'}`;
      }
    });
  // A union of literals reports one `const` line per member: fold them into one.
  const folded = new Map<string, string[]>();
  const result: string[] = [];
  for (const line of lines) {
    const match = /^(.*) must be (".*"|-?\d+)$/.exec(line);
    if (match) {
      const values = folded.get(match[1]) ?? [];
      if (values.length === 0) result.push(match[1]);
      folded.set(match[1], [...values, match[2].replace(/"/g, '')]);
    } else if (!result.includes(line)) {
      result.push(line);
    }
  }
  return result.map((line) => (folded.has(line) ? `${line} must be one of: ${folded.get(line)?.join(', ')}` : line));
};
