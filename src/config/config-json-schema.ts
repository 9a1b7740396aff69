import { z } from 'zod';
import { CONFIG_SCHEMA_ID } from './config-json-schema-ref.ts';
import { configSchema } from './schema.ts';

export { CONFIG_SCHEMA_FILE, CONFIG_SCHEMA_ID, CONFIG_SCHEMA_REF } from './config-json-schema-ref.ts';

type JsonSchemaNode = Record<string, unknown>;

/**
 * The JSON Schema of stackproof.config.json, generated from the zod schema so the two cannot drift.
 *
 * Draft-07, because it is the draft VS Code's JSON language service (and most editors' completion,
 * and SchemaStore) implement fully; its 2019-09/2020-12 support came later and is partial, and this
 * schema uses nothing a later draft adds.
 *
 * The input side (io 'input'): a field with a default may be left out. Two deliberate differences
 * from the zod schema, both toward what a file may hold:
 * - `token` is not required: the file should not hold it; STACKPROOF_<SYSTEM>_TOKEN supplies it.
 * - the cross-field checks (superRefine: a capability that needs its URL or list) are not in the
 *   schema; the loader still names them.
 */
export function configJsonSchema(): JsonSchemaNode {
  const generated = z.toJSONSchema(configSchema, {
    target: 'draft-7',
    io: 'input',
    // `format: uri` takes any scheme; the loader takes only http and https.
    override: (ctx) => {
      const node = ctx.jsonSchema as JsonSchemaNode;
      if (node.format === 'uri') node.pattern = '^[hH][tT][tT][pP][sS]?:';
    },
  }) as JsonSchemaNode;
  const { $schema, ...rest } = generated;
  const schema: JsonSchemaNode = {
    $schema,
    $id: CONFIG_SCHEMA_ID,
    title: 'stackproof configuration',
    description:
      'The configuration file of stackproof (stackproof.config.json; comments allowed). Environment variables (STACKPROOF_*) and command-line flags override it field by field; tokens belong in STACKPROOF_SECRETS_TOKEN, STACKPROOF_MESH_TOKEN and STACKPROOF_SCHEDULER_TOKEN, not in this file.',
    ...rest,
  };
  const targets = (schema.properties as Record<string, JsonSchemaNode>).targets!;
  for (const target of Object.values(targets.properties as Record<string, JsonSchemaNode>)) {
    target.required = (target.required as string[]).filter((key) => key !== 'token');
  }
  return schema;
}
