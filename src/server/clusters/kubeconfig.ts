// The admin kubeconfig with the cluster's ingress CA (upstream's ingress-cert upload): the
// openshift-install kubeconfig trusts the API's own CA only, so the router CA the installer
// controller uploads is appended to each cluster's certificate-authority-data.

import { parseDocument } from 'yaml';

/** `kubeconfig-noingress` plus the ingress CA bundle; throws when the kubeconfig is malformed. */
export function mergeIngressCa(kubeconfigNoIngress: string, ingressCaPem: string): string {
  const doc = parseDocument(kubeconfigNoIngress);
  if (doc.errors.length > 0)
    throw new Error(`kubeconfig-noingress is not valid YAML: ${doc.errors[0]?.message}`);
  const clusters = doc.get('clusters') as { items?: unknown[] } | undefined;
  const count = clusters?.items?.length ?? 0;
  if (count === 0) throw new Error('kubeconfig-noingress has no clusters');
  const ingress = ingressCaPem.trim();
  for (let i = 0; i < count; i++) {
    const path = ['clusters', i, 'cluster', 'certificate-authority-data'];
    const current = doc.getIn(path);
    const pem = typeof current === 'string' ? Buffer.from(current, 'base64').toString('utf8').trim() : '';
    if (pem.includes(ingress)) continue;
    const merged = pem ? `${pem}\n${ingress}\n` : `${ingress}\n`;
    doc.setIn(path, Buffer.from(merged).toString('base64'));
  }
  return doc.toString({ lineWidth: 0 });
}
