// Writes schema/pipeline.schema.json from the zod schema, so editors complete pipeline files.
import { writeFileSync } from "node:fs";
import { pipelineJsonSchema } from "../schema/pipeline.js";

const file = new URL("../schema/pipeline.schema.json", import.meta.url);
writeFileSync(file, `${JSON.stringify(pipelineJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${file.pathname}\n`);
