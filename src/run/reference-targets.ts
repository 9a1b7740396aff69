import type { SystemName, Targets } from '../config/schema.ts';
import type { RunningReference } from '../reference/reference.ts';

/**
 * The target profile of a running embedded reference: every capability it has declared. The
 * fixtures (and the capabilities that need them) come from its control listener, so a reference
 * started without one declares none, like a real product.
 */
export function referenceTargets(ref: RunningReference, systems: readonly SystemName[] = ['secrets', 'mesh', 'scheduler']): Targets {
  const t: Targets = {};
  const dialect = ref.dialect;
  const control = ref.control ? { controlUrl: ref.control.url, controlToken: ref.control.token } : undefined;
  if (systems.includes('secrets')) {
    t.secrets = {
      url: ref.secrets.url,
      token: ref.secrets.token,
      dialect,
      capabilities: { namespaces: true, requestHeaderProxy: true, kvV2: true, identityFixtures: Boolean(control), cloudIdentity: true },
      kv: { v1Mount: ref.secrets.kvV1Mount, v2Mount: ref.secrets.kvV2Mount },
      namespaces: ref.secrets.namespaces,
      requestHeaderProxyUrl: ref.secrets.proxyUrl,
      oidcAltKey: ref.secrets.oidcAltKey,
      cloudIdentity: { ...ref.secrets.cloud, clientAddresses: ['127.0.0.1', '127.0.0.2'] },
      maxRequestBytes: 32 * 1024 * 1024,
      ...(control ? { fixtures: { ...control, entities: [] } } : {}),
    };
  }
  if (systems.includes('mesh')) {
    t.mesh = { url: ref.mesh.url, token: ref.mesh.token, dialect, capabilities: { namespaces: ref.mesh.namespaces, meshFixtures: Boolean(control) }, ...(control ? { fixtures: control } : {}) };
  }
  if (systems.includes('scheduler')) {
    t.scheduler = {
      url: ref.scheduler.url,
      token: ref.scheduler.token,
      dialect,
      nodeId: ref.scheduler.nodeId,
      capabilities: { schedulerFixtures: Boolean(control) },
      ...(control ? { fixtures: control } : {}),
    };
  }
  return t;
}
