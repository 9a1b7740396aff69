import { z } from 'zod';

const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 timestamp');

/** Spec 001, CA roots response: every documented root field, typed as documented. */
export const caRootSchema = z.object({
  ID: z.string(),
  Name: z.string(),
  SerialNumber: z.number().int(),
  SigningKeyID: z.string(),
  ExternalTrustDomain: z.string(),
  NotBefore: timestamp,
  NotAfter: timestamp,
  RootCert: z.string(),
  IntermediateCerts: z.array(z.string()).nullable(),
  Active: z.boolean(),
  PrivateKeyType: z.string(),
  PrivateKeyBits: z.number().int(),
  CreateIndex: z.number().int(),
  ModifyIndex: z.number().int(),
});

export const caRootsSchema = z.object({
  ActiveRootID: z.string(),
  Roots: z.array(caRootSchema),
});

export type CaRootsResponse = z.infer<typeof caRootsSchema>;
