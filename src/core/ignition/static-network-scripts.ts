// Boot-time scripts and units that apply the per-host static network files (core.md §8.3).
// Layout on the host: /etc/assisted/network/host<N>/{mac_interface.ini, *.nmconnection | ymlFile<N>.yml}.

export const STATIC_NETWORK_DIR = '/etc/assisted/network';
export const PRE_NETWORK_SCRIPT_PATH = '/usr/local/bin/pre-network-manager-config.sh';
export const COMMON_NETWORK_SCRIPT_PATH = '/usr/local/bin/common_network_script.sh';

/** Shared helpers: the machine's MAC → interface map and the directory names. */
export const COMMON_NETWORK_SCRIPT = `#!/usr/bin/bash
# Helpers shared by the static-network scripts.
NM_CONFIG_DIR=\${NM_CONFIG_DIR:-${STATIC_NETWORK_DIR}}
MAC_NIC_MAPPING_FILE=mac_interface.ini
# Full ISO: NetworkManager reads system-connections. Minimal ISO sets this to /etc/coreos-firstboot-network.
ETC_NETWORK_MANAGER=\${ETC_NETWORK_MANAGER:-/etc/NetworkManager/system-connections}

# host_macs_to_hw_iface[MAC in upper case] = interface name, for the machine's physical NICs.
declare -A host_macs_to_hw_iface
function map_host_macs_to_interfaces() {
  local path iface mac
  for path in /sys/class/net/*; do
    iface=$(basename "$path")
    # Virtual devices (bonds, bridges, lo) have no "device" link; skip them.
    [ -e "$path/device" ] || continue
    # A bond port reports the bond's MAC as its address: prefer the permanent one.
    mac=$(ethtool -P "$iface" 2>/dev/null | awk '{print $NF}')
    if [ -z "$mac" ] || [ "$mac" = "00:00:00:00:00:00" ]; then
      mac=$(cat "$path/address")
    fi
    host_macs_to_hw_iface[\${mac^^}]=$iface
  done
}

# Prints the host<N> directories whose mapping file names a MAC of this machine.
function matching_host_dirs() {
  local dir mac
  for dir in "$NM_CONFIG_DIR"/host*; do
    [ -f "$dir/$MAC_NIC_MAPPING_FILE" ] || continue
    while IFS='=' read -r mac _ || [ -n "$mac" ]; do
      if [ -n "\${host_macs_to_hw_iface[\${mac^^}]:-}" ]; then
        echo "$dir"
        break
      fi
    done < "$dir/$MAC_NIC_MAPPING_FILE"
  done
}
`;

/**
 * Keyfile flavour: rename the logical NIC names in the host's keyfiles to the real interface
 * names (VLAN names trimmed to NetworkManager's 15 characters) and install them before
 * NetworkManager starts.
 */
export const PRE_NETWORK_SCRIPT_KEYFILES = `#!/usr/bin/bash
source "\${COMMON_SCRIPT_PATH:-${COMMON_NETWORK_SCRIPT_PATH}}"
echo "PreNetworkConfig Start"
map_host_macs_to_interfaces
work_dir=$(mktemp -d)

for host_dir in $(matching_host_dirs); do
  echo "Info: applying static network configuration from $(basename "$host_dir")"
  cp "$host_dir"/*.nmconnection "$work_dir"/ 2>/dev/null || continue
  while IFS='=' read -r mac logical || [ -n "$mac" ]; do
    real="\${host_macs_to_hw_iface[\${mac^^}]:-}"
    [ -n "$real" ] || continue
    for file in "$work_dir"/*.nmconnection; do
      name=$(basename "$file")
      prefix="\${name%%.*}"
      rest="\${name#*.}"
      target_nic=$real
      if [ "$prefix" = "$logical" ]; then
        vlan_id=$(echo "$rest" | cut -s -d. -f1)
        if [ -n "$vlan_id" ] && [ "\${#real}" -gt $((14 - \${#vlan_id})) ]; then
          target_nic="\${real:0:$((14 - \${#vlan_id}))}"
          sed -i "s/=$logical\\.$vlan_id$/=$target_nic.$vlan_id/g" "$file"
        fi
        mv -f "$file" "$work_dir/$target_nic.$rest"
        file="$work_dir/$target_nic.$rest"
      fi
      sed -i -e "s/=$logical$/=$real/g" -e "s/=$logical\\./=$real./g" "$file"
    done
  done < "$host_dir/$MAC_NIC_MAPPING_FILE"
done

if [ -n "$(ls -A "$work_dir")" ]; then
  mkdir -p "$ETC_NETWORK_MANAGER"
  # Drop the connections generated in the initramfs so that ours take effect.
  rm -f "$ETC_NETWORK_MANAGER"/*
  install -m 0600 "$work_dir"/* "$ETC_NETWORK_MANAGER"/
else
  echo "Info: no static network configuration matches this host"
fi
rm -rf "$work_dir"
echo "PreNetworkConfig End"
`;

/** nmstatectl flavour: apply the matching host's nmpolicy; nmstate resolves the MAC captures. */
export const PRE_NETWORK_SCRIPT_NMSTATECTL = `#!/usr/bin/bash
source "\${COMMON_SCRIPT_PATH:-${COMMON_NETWORK_SCRIPT_PATH}}"
echo "PreNetworkConfig Start"
map_host_macs_to_interfaces
applied=0
for host_dir in $(matching_host_dirs); do
  for policy in "$host_dir"/*.yml; do
    [ -f "$policy" ] || continue
    echo "Info: applying $policy"
    nmstatectl apply "$policy" && applied=1
  done
done
[ "$applied" = 1 ] || echo "Info: no static network configuration matches this host"
echo "PreNetworkConfig End"
`;

export const PRE_NETWORK_SERVICE_KEYFILES = `[Unit]
Description=Assisted static network configuration
DefaultDependencies=no
After=systemd-udev-settle.service
Before=NetworkManager.service
[Service]
Type=oneshot
TimeoutSec=60
ExecStart=${PRE_NETWORK_SCRIPT_PATH}
[Install]
WantedBy=multi-user.target
`;

export const PRE_NETWORK_SERVICE_NMSTATECTL = `[Unit]
Description=Assisted static network configuration (nmstate)
After=NetworkManager-wait-online.service
Before=nmstate.service
[Service]
Type=oneshot
ExecStart=${PRE_NETWORK_SCRIPT_PATH}
[Install]
WantedBy=multi-user.target
`;
