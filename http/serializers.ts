import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Fastify's default response serialisers (fast-json-stringify), compiled once per distinct
 * schema instead of once per route and status: most routes answer the same error envelope under
 * five to eight statuses, so without this the service compiled ≈ 1,400 serialisers for a few
 * dozen distinct schemas, each holding its generated source text, its code and an Ajv instance of
 * its own (tens of MiB of heap in every process). The cache lives per factory call, i.e. per set
 * of shared schemas ($ref targets), which Fastify fixes before it compiles a route.
 */
export const sharedSerializers = (): SerializerFactory => {
  const factory = SerializerSelector();
  return (externalSchemas, options) => {
    const build = factory(externalSchemas, options);
    const compiled = new Map<string, Serializer>();
    return (route) => {
      const key = JSON.stringify(route.schema) ?? '';
      let serializer = compiled.get(key);
      if (!serializer) compiled.set(key, (serializer = build(route)));
      return serializer;
    };
  };
};
