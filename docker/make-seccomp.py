#!/usr/bin/env python3
"""Writes docker/seccomp.json: the container runtime's default seccomp profile,
changed only where mcpgate's sandbox needs it, and narrowed where it does not.

usage: docker/make-seccomp.py [BASE] > docker/seccomp.json
BASE defaults to /usr/share/containers/seccomp.json (Debian's containers-common:
the profile Podman applies by default, the same rules as Docker's default with
fewer capability gates). The output is committed; rerun after a base update.

Why each change (the sandbox's syscalls are in sandbox/*.cc):
- unshare, mount, umount2, pivot_root, sethostname, mount_setattr and clone
  with namespace flags must be allowed without CAP_SYS_ADMIN in the container:
  the sandbox runs as an unprivileged user and gets its capabilities inside
  the user namespace it creates. Docker's default gates them on CAP_SYS_ADMIN
  (which we do not want to grant); here they are unconditional.
- Removed because neither the gateway, its sandbox, Node.js nor Python need
  them, and each has been a route to the kernel that containers do not need:
  the kernel keyring (keyctl, add_key, request_key), joining namespaces
  (setns), the new mount API besides mount_setattr (open_tree, move_mount,
  fsopen, fsconfig, fsmount, fspick), BPF and perf (bpf, perf_event_open),
  process_vm_readv/writev and kcmp, userfaultfd, and io_uring (libuv probes it
  and falls back on an errno). They fail with the default errno, ENOSYS.
- clone3 stays out too: it fails with ENOSYS so glibc and Node fall back to
  clone, whose flags the filter can check (EPERM would break Node).
"""
import json
import sys

NEEDED = ["unshare", "mount", "umount2", "pivot_root", "sethostname", "mount_setattr", "clone",
          "seccomp", "prctl", "capget", "capset", "pidfd_open", "pidfd_send_signal", "close_range"]
REMOVED = {"keyctl", "add_key", "request_key", "setns", "open_tree", "move_mount", "fsopen",
           "fsconfig", "fsmount", "fspick", "bpf", "perf_event_open", "process_vm_readv",
           "process_vm_writev", "kcmp", "userfaultfd", "io_uring_setup", "io_uring_enter",
           "io_uring_register", "clone3"}


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/containers/seccomp.json"
    with open(base, encoding="utf-8") as f:
        profile = json.load(f)
    rules = []
    for rule in profile["syscalls"]:
        names = [n for n in rule["names"] if n not in REMOVED]
        if rule["action"] == "SCMP_ACT_ALLOW" and not rule.get("args") and \
                not rule.get("includes") and not rule.get("excludes"):
            # The unconditional allow list: add what the sandbox needs.
            names = sorted(set(names) | set(NEEDED))
        elif rule["action"] == "SCMP_ACT_ALLOW":
            # A capability-gated or argument-checked allow: what moved to the
            # unconditional list no longer needs it.
            names = [n for n in names if n not in NEEDED]
        elif rule["action"] == "SCMP_ACT_ERRNO" and rule.get("excludes"):
            # The errno half of a capability gate: must not shadow NEEDED.
            names = [n for n in names if n not in NEEDED]
        if names:
            rules.append(dict(rule, names=names))
    profile["syscalls"] = rules
    json.dump(profile, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
