import { z } from 'zod';
import type { HttpClient, HttpResponse } from './http-client.ts';
import type { SecretsApi, SecretsCallOptions } from './secrets-api.ts';

export const machineSchema = z.object({
  kind: z.enum(['vm', 'vmss']),
  name: z.string(),
  subscription_id: z.string(),
  resource_group: z.string(),
  location: z.string(),
  principal_id: z.string(),
  groups: z.array(z.string()),
});
export type SimMachine = z.infer<typeof machineSchema>;

export type TokenVariant = 'good' | 'wrong-signature' | 'wrong-audience' | 'wrong-issuer' | 'wrong-tenant' | 'expired' | 'not-yet-valid' | 'alg-none';

/** The stackproof cloud simulator: machines with managed identities and the tokens it mints for them. */
export class CloudSimulatorApi {
  constructor(private readonly http: HttpClient) {}

  async machine(spec: Partial<Omit<SimMachine, 'groups'>> & { groups?: string[] }): Promise<SimMachine> {
    const res = await this.http.post('/simulator/machines', spec);
    if (res.status !== 200) throw new Error(`the cloud simulator refused a machine: ${res.status} ${res.text.slice(0, 200)}`);
    return res.parse(machineSchema);
  }

  async token(machine: string, audience: string, variant: TokenVariant = 'good'): Promise<string> {
    const res = await this.http.post('/simulator/tokens', { machine, audience, variant });
    if (res.status !== 200) throw new Error(`the cloud simulator refused a token: ${res.status} ${res.text.slice(0, 200)}`);
    return res.parse(z.object({ jwt: z.string() })).jwt;
  }
}

export const loginResponseSchema = z.object({
  auth: z.object({
    client_token: z.string().min(1),
    accessor: z.string(),
    token_policies: z.array(z.string()),
    lease_duration: z.number().int(),
    renewable: z.boolean(),
  }),
});

/** The cloud-identity auth method's endpoints under auth/<mount>/. */
export class CloudAuthApi {
  constructor(
    readonly secrets: SecretsApi,
    readonly mount: string,
  ) {}

  writeConfig(body: Record<string, unknown>): Promise<HttpResponse> {
    return this.secrets.write(`auth/${this.mount}/config`, body);
  }
  readConfig(): Promise<HttpResponse> {
    return this.secrets.read(`auth/${this.mount}/config`);
  }
  deleteConfig(): Promise<HttpResponse> {
    return this.secrets.delete(`auth/${this.mount}/config`);
  }
  writeRole(name: string, body: Record<string, unknown>): Promise<HttpResponse> {
    return this.secrets.write(`auth/${this.mount}/role/${name}`, body);
  }
  readRole(name: string): Promise<HttpResponse> {
    return this.secrets.read(`auth/${this.mount}/role/${name}`);
  }
  listRoles(): Promise<HttpResponse> {
    return this.secrets.list(`auth/${this.mount}/role`, 'verb');
  }
  deleteRole(name: string): Promise<HttpResponse> {
    return this.secrets.delete(`auth/${this.mount}/role/${name}`);
  }
  /** Login needs no token: the request carries none. */
  login(body: Record<string, unknown>, options: SecretsCallOptions = {}): Promise<HttpResponse> {
    return this.secrets.write(`auth/${this.mount}/login`, body, 'POST', { bare: true, ...options });
  }
}
