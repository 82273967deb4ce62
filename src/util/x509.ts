// @peculiar/x509 resolves its crypto provider through tsyringe, which needs the reflect polyfill
// loaded first; importing x509 only through this module keeps that order in one place.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };
