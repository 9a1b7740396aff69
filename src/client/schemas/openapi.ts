import { z } from 'zod';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const operation = z.object({ responses: z.record(z.string(), z.unknown()) }).passthrough();

const pathItem = z
  .object(Object.fromEntries(METHODS.map((m) => [m, operation.optional()])) as Record<(typeof METHODS)[number], z.ZodOptional<typeof operation>>)
  .passthrough();

/** The structural core of an OpenAPI 3 document: version 3.x, info with title and version, paths of path items. */
export const openApi3Schema = z.object({
  openapi: z.string().regex(/^3\.\d+(\.\d+)?$/, 'must be an OpenAPI 3.x version string'),
  info: z.object({ title: z.string(), version: z.string() }).passthrough(),
  paths: z.record(z.string().regex(/^\//, 'path keys start with /'), pathItem),
});

export const helpResponseSchema = z.object({
  help: z.string().min(1),
  openapi: z.unknown(),
});
