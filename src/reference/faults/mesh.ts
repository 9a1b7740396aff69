import type { Fault } from './types.ts';

export const meshFaults: Fault[] = [
  {
    id: 'mesh.roots-active-id-unknown',
    system: 'mesh',
    breaks: ['mesh.roots.documented-fields'],
    description: 'ActiveRootID names a root that is not in Roots',
  },
  {
    id: 'mesh.roots-missing-signing-key-id',
    system: 'mesh',
    breaks: ['mesh.roots.documented-fields'],
    description: 'Roots leave out SigningKeyID',
  },
  {
    id: 'mesh.roots-cert-der-base64',
    system: 'mesh',
    breaks: ['mesh.roots.documented-fields'],
    description: 'RootCert is bare base64 DER instead of a PEM certificate',
  },
];
