// @peculiar/x509 resolves its ASN.1 providers through tsyringe, which needs the Reflect polyfill
// loaded first; importing x509 only through this module guarantees the order.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };
