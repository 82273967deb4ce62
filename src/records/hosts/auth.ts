// One LocalAuth per operator process, shared by the REST server (verifies tokens) and the
// controllers (sign the URLs they write into status). Created on first use from the key Secret, so
// whichever starts first — a reconciler or the server — loads the same keys.

import { LocalAuth } from '../../auth/index.ts';
import type { OperatorContext } from '../context.ts';
import { operatorEventsFor } from '../events.ts';
import { CacheAccessResolver } from './access.ts';
import { SecretKeyStore } from './keystore.ts';

const perContext = new WeakMap<OperatorContext, Promise<LocalAuth>>();

export function localAuthFor(ctx: OperatorContext): Promise<LocalAuth> {
  let auth = perContext.get(ctx);
  if (!auth) {
    auth = LocalAuth.create({
      keyStore: new SecretKeyStore(ctx.client, ctx.namespace, ctx.settings.authKeysSecretName),
      resolver: new CacheAccessResolver(ctx),
      events: operatorEventsFor(ctx),
    });
    // A failed load (API down at start) must not be remembered: the next caller tries again.
    auth.catch(() => perContext.delete(ctx));
    perContext.set(ctx, auth);
  }
  return auth;
}
