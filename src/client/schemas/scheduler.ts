import { z } from 'zod';

/** Spec 002, Node metadata response. */
export const nodeMetadataSchema = z.object({
  Meta: z.record(z.string(), z.string()),
  Static: z.record(z.string(), z.string()),
  Dynamic: z.record(z.string(), z.string().nullable()),
});

export type NodeMetadataResponse = z.infer<typeof nodeMetadataSchema>;
