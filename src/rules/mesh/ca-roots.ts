import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.mesh;

export const meshCaRootsRules: Rule[] = [
  {
    id: 'mesh.roots.documented-fields',
    system: 'mesh',
    title: 'CA roots returns every documented field; ActiveRootID names a root whose Active is true; RootCert is an X.509 certificate',
    level: 'MUST',
    sources: [
      { file, section: 'Resources and their fields > CA roots response', quote: 'ActiveRootID | string | ID of the active root' },
      {
        file,
        section: 'Resources and their fields > CA roots response',
        quote:
          'Root fields: ID (string), Name (string), SerialNumber (integer), SigningKeyID (string), ExternalTrustDomain (string), NotBefore (timestamp string, ISO 8601), NotAfter (timestamp string), RootCert (PEM string), IntermediateCerts (null or list), Active (boolean), PrivateKeyType (string), PrivateKeyBits (integer), CreateIndex (integer), ModifyIndex (integer).',
      },
    ],
    notes: [
      'SerialNumber is a 64-bit unsigned integer upstream (hashicorp/consul agent/structs/connect_ca.go CARoot.SerialNumber uint64, set from the root certificate in agent/consul/leader_connect_ca.go newCARoot): with a CA that picks random serials it exceeds 2^53, so the test accepts any integral JSON number, not only a safe integer',
    ],
  },
];
