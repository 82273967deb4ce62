// Text of the scripts and systemd units placed on the discovery host (core.md §8.1, agent-api.md
// §8). Behaviour follows upstream's templates; the text is ours.

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

export const AGENT_FIX_BZ1964591 = `#!/usr/bin/sh
# An interrupted pull can leave an image that podman knows by name but cannot list or run
# (BZ 1964591). Remove such an image so that agent-pull-image fetches it again.
image="$1"
if [ -z "$(podman images --quiet "$image" 2>/dev/null)" ]; then
  podman rmi --force "$image" >/dev/null 2>&1 || true
fi
`;

export const AGENT_PULL_IMAGE = `#!/usr/bin/sh
# Pull the agent image until it succeeds: waits 5s after the first failure, doubling up to 300s.
image="$1"
delay=5
max_delay=300
until podman image exists "$image" || podman pull "$image"; do
  echo "Failed to pull $image, retrying in $delay seconds" >&2
  sleep "$delay"
  delay=$((delay * 2))
  if [ "$delay" -gt "$max_delay" ]; then
    delay=$max_delay
  fi
done
`;

export const MOTD = `
** This is a host being installed by the OpenShift Assisted Installer. **
It is running a discovery image: its disks are left untouched until the installation starts,
and they will then be overwritten.

The agent runs as the systemd unit agent.service. To follow it:
  sudo journalctl -u agent.service
To read everything the agent and its steps log:
  sudo journalctl TAG=agent

`;

export const MULTIPATH_CONF = `defaults {
    user_friendly_names yes
    find_multipaths yes
    enable_foreign "^$"
}

blacklist_exceptions {
    property "(SCSI_IDENT_|ID_WWN)"
}

blacklist {
}
`;

export const OCI_EVAL_USER_DATA_SH = `#!/usr/bin/bash
# On Oracle Cloud Infrastructure, fetch this instance's user data from the metadata service and
# run it (it may, for example, configure iSCSI boot volumes). Elsewhere do nothing.
case "$(uname -m)" in
  ppc64le|s390x) exit 0 ;;
esac
if [ "$(cat /sys/devices/virtual/dmi/id/chassis_asset_tag 2>/dev/null)" != "OracleCloud.com" ]; then
  exit 0
fi
user_data=$(curl --silent --fail --max-time 30 -H "Authorization: Bearer Oracle" \\
  http://169.254.169.254/opc/v2/instance/metadata/user_data) || exit 1
if [ -n "$user_data" ]; then
  echo "$user_data" | base64 --decode > /tmp/oci-user-data.sh
  chmod 0700 /tmp/oci-user-data.sh
  /tmp/oci-user-data.sh
fi
`;

export const IPV6_CONF = `[connection]
ipv6.dhcp-iaid=mac
ipv6.dhcp-duid=ll
`;

export const SELINUX_POLICY = `module assisted 1.0;

require {
    type chronyd_t;
    type container_file_t;
    type spc_t;
    class unix_dgram_socket sendto;
    class dir search;
    class sock_file write;
}

# chronyd talks to the agent's NTP step through a socket in a container directory
allow chronyd_t container_file_t:dir search;
allow chronyd_t container_file_t:sock_file write;
allow chronyd_t spc_t:unix_dgram_socket sendto;
`;

export const SELINUX_SERVICE = `[Unit]
Description=Load the assisted SELinux policy module
[Service]
Type=oneshot
ExecStartPre=checkmodule -M -m -o /root/assisted.mod /root/assisted.te
ExecStartPre=semodule_package -o /root/assisted.pp -m /root/assisted.mod
ExecStart=semodule -i /root/assisted.pp
[Install]
WantedBy=multi-user.target
`;

export const ISCSISTART_SERVICE = `[Unit]
Description=Log in to the iSCSI targets listed in the firmware (iBFT)
[Service]
Type=oneshot
ExecStart=-/usr/sbin/modprobe iscsi_ibft
ExecStart=-/usr/sbin/iscsistart -f
ExecStart=-/usr/sbin/iscsistart -b
[Install]
WantedBy=multi-user.target
`;

export const OCI_EVAL_USER_DATA_SERVICE = `[Unit]
Description=Run the Oracle Cloud instance user data
Wants=NetworkManager.service
After=NetworkManager.service
[Service]
Type=oneshot
Environment=ASSISTED_INSTALLER_DISCOVERY_ENV=1
ExecStart=/usr/local/bin/oci-eval-user-data.sh
Restart=on-failure
RestartSec=30
[Install]
WantedBy=multi-user.target
`;

export const ADD_NTP_SOURCES_SERVICE = `[Unit]
Description=Add the infra-env NTP sources to chrony
Before=chronyd.service
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'for dir in /usr/local/bin /var/usrlocal/bin; do if [ -x "$dir/add-ntp-sources.sh" ]; then exec "$dir/add-ntp-sources.sh"; fi; done; echo "add-ntp-sources.sh not found" >&2; exit 1'
[Install]
WantedBy=multi-user.target
`;

export const OKD_OVERLAY_SERVICE = `[Unit]
Description=Overlay the OKD RPMs the agent needs
Wants=network-online.target
After=network-online.target
[Service]
Type=oneshot
ExecStart=/usr/local/bin/okd-binaries.sh
[Install]
WantedBy=multi-user.target
`;

/** OKD only: a listener on the journal gateway port so probes of it succeed. */
export const JOURNAL_GATEWAYD_SOCKET = `[Unit]
Description=Placeholder systemd-journal-gatewayd socket
[Socket]
ListenStream=19531
Accept=yes
[Install]
WantedBy=sockets.target
`;

/** Drop-in making a unit wait for the OKD overlay. */
export const WAIT_FOR_OKD_DROPIN = `[Unit]
Wants=okd-overlay.service
After=okd-overlay.service
`;

export function okdBinariesScript(okdRpmsImage: string): string {
  return `#!/usr/bin/bash
# Install the RPMs the assisted agent needs on top of the OKD live system.
set -euo pipefail
image="${okdRpmsImage}"
until podman pull "$image"; do
  sleep 5
done
mountpoint=$(podman image mount "$image")
rpm-ostree usroverlay
rpm -Uvh --force --nodeps "$mountpoint"/rpms/*.rpm
podman image unmount "$image"
`;
}

/** Environment= lines for a unit; '%' is doubled because systemd expands specifiers there. */
export function proxyEnvironmentLines(proxy: ProxySettings): string[] {
  const lines: string[] = [];
  const add = (upper: string, lower: string, value: string | undefined) => {
    if (!value) return;
    const escaped = value.replaceAll('%', '%%');
    lines.push(`Environment=${upper}=${escaped}`, `Environment=${lower}=${escaped}`);
  };
  add('HTTP_PROXY', 'http_proxy', proxy.httpProxy);
  add('HTTPS_PROXY', 'https_proxy', proxy.httpsProxy);
  add('NO_PROXY', 'no_proxy', proxy.noProxy);
  return lines;
}

export interface AgentServiceParams {
  agentImage: string;
  serviceBaseUrl: string;
  infraEnvId: string;
  agentToken?: string;
  timeoutStartSeconds: number;
  insecure: boolean;
  /** Path of the service CA on the host, when one is embedded. */
  caCertPath?: string;
  proxy: ProxySettings;
}

export function agentService(p: AgentServiceParams): string {
  const exec = [
    '/usr/local/bin/agent',
    `--url ${p.serviceBaseUrl}`,
    `--infra-env-id ${p.infraEnvId}`,
    `--agent-version ${p.agentImage}`,
    `--insecure=${p.insecure}`,
    ...(p.caCertPath ? [`--cacert ${p.caCertPath}`] : []),
  ].join(' ');
  return [
    '[Service]',
    'Type=simple',
    'Restart=always',
    'RestartSec=3',
    'StartLimitInterval=0',
    ...proxyEnvironmentLines(p.proxy),
    ...(p.agentToken ? [`Environment=PULL_SECRET_TOKEN=${p.agentToken}`] : []),
    `TimeoutStartSec=${p.timeoutStartSeconds}`,
    `ExecStartPre=/usr/local/bin/agent-fix-bz1964591 ${p.agentImage}`,
    `ExecStartPre=/usr/local/bin/agent-pull-image ${p.agentImage}`,
    `ExecStartPre=podman run --pull=never --privileged --rm -v /usr/local/bin:/hostbin ${p.agentImage} cp /usr/bin/agent /hostbin`,
    `ExecStart=${exec}`,
    '',
    '[Unit]',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** /etc/profile.d/proxy.sh: exports for interactive shells. */
export function profileProxyScript(proxy: ProxySettings): string {
  const lines: string[] = [];
  const add = (upper: string, lower: string, value: string | undefined) => {
    if (value) lines.push(`export ${upper}="${value}"`, `export ${lower}="${value}"`);
  };
  add('HTTP_PROXY', 'http_proxy', proxy.httpProxy);
  add('HTTPS_PROXY', 'https_proxy', proxy.httpsProxy);
  add('NO_PROXY', 'no_proxy', proxy.noProxy);
  return lines.join('\n') + '\n';
}

/**
 * add-ntp-sources.sh. Replace mode (infra-env `ntp_sources`) rewrites chrony.conf to use only
 * those servers; append mode (`additional_ntp_sources`) keeps the image's sources and adds them.
 * Both allow stepping the clock at any time (`makestep 1.0 -1`): discovery hosts often boot far off.
 */
export function addNtpSourcesScript(sources: string[], mode: 'replace' | 'append'): string {
  const servers = sources.map((s) => `server ${s} iburst`);
  if (mode === 'replace') {
    return [
      '#!/usr/bin/sh',
      '# Use only the NTP sources configured for this infra-env.',
      "cat > /etc/chrony.conf <<'EOF'",
      ...servers,
      'sourcedir /run/chrony-dhcp',
      'driftfile /var/lib/chrony/drift',
      'makestep 1.0 -1',
      'rtcsync',
      'logdir /var/log/chrony',
      'EOF',
      '',
    ].join('\n');
  }
  return [
    '#!/usr/bin/sh',
    '# Add the infra-env NTP sources to the image defaults.',
    'conf=/etc/chrony.conf',
    'if grep -q "^makestep" "$conf"; then',
    '  sed -i "s/^makestep.*/makestep 1.0 -1/" "$conf"',
    'else',
    '  echo "makestep 1.0 -1" >> "$conf"',
    'fi',
    ...servers.flatMap((line) => [`grep -qxF '${line}' "$conf" || echo '${line}' >> "$conf"`]),
    '',
  ].join('\n');
}

/** /etc/containers/policy.json accepting any image (requested with insecure mirror registries). */
export const INSECURE_POLICY_JSON = `{
  "default": [{ "type": "insecureAcceptAnything" }],
  "transports": {
    "docker-daemon": { "": [{ "type": "insecureAcceptAnything" }] }
  }
}
`;
