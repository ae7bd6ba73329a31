#!/usr/bin/python3
"""Podman precreate hook: what `--security-opt unmask=ALL` does, for `podman kube play`.

Podman 4.3 (Debian 12) ignores a container's `securityContext.procMount: Unmasked`
(later Podman versions map it to unmask=ALL) and has no annotation for it, but
runs OCI hooks of stage "precreate": they get the container's runtime config on
stdin and print the config to use. docker/kube-test.sh installs this one, for
the containers that run the image's entrypoint, when the manifests ask for
procMount: Unmasked. It clears the paths masked or made
read-only under /proc, so the kernel lets the sandbox mount a fresh /proc for
each server's PID namespace (it refuses where /proc is partly hidden).
/sys stays masked: the sandbox does not mount it.
"""
import json
import sys

config = json.load(sys.stdin)
linux = config.get("linux", {})
for key in ("maskedPaths", "readonlyPaths"):
    linux[key] = [p for p in linux.get(key, []) if not p.startswith("/proc")]
json.dump(config, sys.stdout)
