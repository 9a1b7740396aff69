// Where the package ships the config's JSON Schema; kept apart from the generator so that `init`
// can name it without loading zod's JSON Schema code.
export const CONFIG_SCHEMA_FILE = 'stackproof.schema.json';
/** What a config's `$schema` says, from a project that has stackproof installed. */
export const CONFIG_SCHEMA_REF = `./node_modules/stackproof/${CONFIG_SCHEMA_FILE}`;
// A URN: the package has no home page to name, and an identifier need not be fetchable.
export const CONFIG_SCHEMA_ID = 'urn:stackproof:config-schema';
