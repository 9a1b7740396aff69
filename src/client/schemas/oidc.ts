import { z } from 'zod';

/** Spec 000, OIDC provider read: {data:{allowed_client_ids, issuer, scopes_supported}}. */
export const providerReadSchema = z.object({
  data: z.object({ allowed_client_ids: z.array(z.string()), issuer: z.string(), scopes_supported: z.array(z.string()) }),
});

export const scopeReadSchema = z.object({ data: z.object({ description: z.string(), template: z.string() }) });

/** Spec 000, OIDC client read; TTLs are returned as integer seconds. */
export const clientReadSchema = z.object({
  data: z.object({
    access_token_ttl: z.number().int(),
    assignments: z.array(z.string()),
    client_id: z.string().min(1),
    client_secret: z.string().optional(),
    client_type: z.enum(['confidential', 'public']),
    id_token_ttl: z.number().int(),
    key: z.string(),
    redirect_uris: z.array(z.string()),
  }),
});

export const assignmentReadSchema = z.object({ data: z.object({ entity_ids: z.array(z.string()), group_ids: z.array(z.string()) }) });

/** Spec 000, OpenID configuration fields. */
export const discoverySchema = z.object({
  issuer: z.string(),
  jwks_uri: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  userinfo_endpoint: z.string(),
  request_parameter_supported: z.boolean(),
  request_uri_parameter_supported: z.boolean(),
  id_token_signing_alg_values_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  subject_types_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
});

/** Spec 000, Public key set. */
export const jwksSchema = z.object({
  keys: z.array(z.object({ use: z.string(), kty: z.string(), kid: z.string(), alg: z.string(), n: z.string(), e: z.string() }).passthrough()).min(1),
});

/** Spec 000, Authorization code response. */
export const authorizeResponseSchema = z.object({ code: z.string().min(1), state: z.string() });

/** Spec 000, Token response. */
export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  id_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().int(),
});

/**
 * Spec 000, Userinfo response (claims present depend on the scopes). The spec leaves absent vs null
 * open: an entity in no group may get groups: null (Vault renders a Go nil slice, hashicorp/vault
 * sdk/helper/identitytpl PopulateString).
 */
export const userinfoSchema = z
  .object({
    sub: z.string(),
    username: z.string().optional(),
    groups: z.array(z.string()).nullable().optional(),
    contact: z.object({ email: z.string().optional(), phone_number: z.string().optional() }).optional(),
  })
  .passthrough();

/** Upstream OAuth error body (not shown in the spec). */
export const oauthErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() }).passthrough();
