import { createRequire } from "node:module";

/**
 * A real JSON Schema 2020-12 validator for the tests: the ajv that @seriousme/openapi-schema-validator
 * (a devDependency) brings, loaded from that package's own location so no extra dependency is declared.
 */
const requireHere = createRequire(import.meta.url);
const requireFromValidator = createRequire(requireHere.resolve("@seriousme/openapi-schema-validator"));

interface CompiledSchema {
  (data: unknown): boolean;
  errors?: { instancePath: string; message?: string }[] | null;
}
interface Ajv {
  compile(schema: object): CompiledSchema;
}

const Ajv2020 = (requireFromValidator("ajv/dist/2020.js") as { default: new (opts: object) => Ajv }).default;
const addFormats = (requireFromValidator("ajv-formats") as { default: (ajv: Ajv) => Ajv }).default;

/**
 * Compiles `schema` with ajv in strict mode: unknown keywords and formats are errors. Type unions
 * (`["string", "null"]`) and `required` inside `anyOf` are valid JSON Schema that ajv's lint flags.
 */
export function compileJsonSchema(schema: object): CompiledSchema {
  const ajv = addFormats(
    new Ajv2020({ strict: true, allowUnionTypes: true, strictRequired: false, allErrors: true }),
  );
  return ajv.compile(schema);
}

export function errorsOf(validate: CompiledSchema): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? ""}`).join("; ");
}
