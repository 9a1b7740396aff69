import { z } from 'zod';

const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 timestamp');

/**
 * An integer as JSON carries it. Upstream these are 64-bit unsigned (a root's SerialNumber from a CA
 * that picks random serials is above 2^53), which JSON.parse reads as an integral but unsafe number:
 * zod's int() would refuse it.
 */
const integral = z.number().refine(Number.isInteger, 'must be an integer');

/** Spec 001, CA roots response: every documented root field, typed as documented. */
export const caRootSchema = z.object({
  ID: z.string(),
  Name: z.string(),
  SerialNumber: integral,
  SigningKeyID: z.string(),
  ExternalTrustDomain: z.string(),
  NotBefore: timestamp,
  NotAfter: timestamp,
  RootCert: z.string(),
  IntermediateCerts: z.array(z.string()).nullable(),
  Active: z.boolean(),
  PrivateKeyType: z.string(),
  PrivateKeyBits: integral,
  CreateIndex: integral,
  ModifyIndex: integral,
});

export const caRootsSchema = z.object({
  ActiveRootID: z.string(),
  Roots: z.array(caRootSchema),
});

export type CaRootsResponse = z.infer<typeof caRootsSchema>;
