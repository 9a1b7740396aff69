import { z } from 'zod';

/** Spec 000, Error body: every status >= 400 carries {errors:[...]}. */
export const errorBodySchema = z.object({ errors: z.array(z.string()) });

/** Spec 000, List result: data.keys. */
export const listResultSchema = z.object({ data: z.object({ keys: z.array(z.string()) }) });

export const readResultSchema = z.object({ data: z.record(z.string(), z.unknown()) });
