#!/usr/bin/env bash
# The Kubernetes manifests on one host: `kubectl kustomize docker/k8s`, made
# runnable here (one replica, the test's token hash and keys, the pod's port
# published on 127.0.0.1, kinds Podman does not run left out), then
# `podman kube play`; the official SDK client calls through the pod.
# Builds the image with docker/build-image.sh unless MCPGATE_IMAGE names one.
# Exit 77 (skipped) without podman or kubectl.
# Podman 4.3 (Debian 12) needs three adaptations beyond that, each marked below:
# the Secret as a host folder, the seccomp profile by its older annotation, and
# procMount: Unmasked done by a precreate hook (docker/podman-unmask-proc.py).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
command -v podman >/dev/null && command -v kubectl >/dev/null ||
  { echo "kube-test: podman or kubectl missing: skipped"; exit 77; }
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/docker/containers.conf}
image=${MCPGATE_IMAGE:-localhost/mcpgate:test}
if [ -z "${MCPGATE_IMAGE:-}" ]; then
  # The image container-test.sh builds; its layers are cached after that test.
  start=$(date +%s)
  bash docker/build-image.sh "$image" >/dev/null
  echo "kube-test: image built in $(($(date +%s) - start)) s (cached layers count as 0)"
fi
work=$(mktemp -d)

token=$(node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))')
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
cleanup() {
  podman kube down "$work/play.yaml" >/dev/null 2>&1 || true
  # The volumes kube play made: this run's emptyDirs and the ConfigMap's
  # (kept by Podman, and reused by the next run under the same name).
  podman volume ls -q | grep -E "^mcpgate-kube-test-$port-|^mcpgate-config-" |
    xargs -r podman volume rm -f >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
kubectl kustomize docker/k8s >"$work/rendered.yaml"
echo "kube-test: kubectl kustomize docker/k8s: $(grep -c '^kind:' "$work/rendered.yaml") objects"
VOLUME_PREFIX=mcpgate-kube-test-$port- HERE=$here TOKEN=$token PORT=$port IMAGE=$image SECCOMP="$here/docker/seccomp.json" /usr/bin/python3 - \
  "$work/rendered.yaml" "$work/play.yaml" <<'PY'
import hashlib, json, os, secrets, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
out = []
for d in docs:
    kind = d["kind"]
    if kind in ("Namespace", "PodDisruptionBudget", "HorizontalPodAutoscaler", "NetworkPolicy", "Service"):
        continue  # cluster objects a single host has no use for
    d["metadata"].pop("namespace", None)
    if kind == "ConfigMap":
        text = d["data"]["mcpgate.yaml"]
        sha = hashlib.sha256(os.environ["TOKEN"].encode()).hexdigest()
        d["data"]["mcpgate.yaml"] = text.replace("0" * 64, sha) + \
            "sandbox: {on_unavailable: degrade}   # no delegated cgroup here (README)\n"
    if kind == "Secret":
        # Podman 4.3's kube play stops on a Secret (nil dereference): the keys
        # become a host folder and an env value, as the Secret would provide them.
        keys = os.path.join(os.path.dirname(sys.argv[2]), "keys")
        os.makedirs(keys)
        for k in d["stringData"]:
            with open(os.path.join(keys, k), "w") as f:
                f.write(secrets.token_hex(32) + "\n")
            os.chmod(os.path.join(keys, k), 0o444)
        os.chmod(keys, 0o755)
        continue
    if kind == "Deployment":
        d["spec"]["replicas"] = 1
        pod = d["spec"]["template"]["spec"]
        # Podman keeps an emptyDir as a named volume of the same name after the
        # pod is gone: names of this run's own, removed at the end.
        renamed = {v["name"]: os.environ["VOLUME_PREFIX"] + v["name"]
                   for v in pod["volumes"] if "emptyDir" in v}
        for v in pod["volumes"]:
            v["name"] = renamed.get(v["name"], v["name"])
        for c in pod["initContainers"] + pod["containers"]:
            for m in c.get("volumeMounts", []):
                m["name"] = renamed.get(m["name"], m["name"])
        # Podman 4.3 reads the older annotation, under --seccomp-profile-root.
        pod["securityContext"].pop("seccompProfile")
        annotations = d["spec"]["template"].setdefault("metadata", {}).setdefault("annotations", {})
        annotations["seccomp.security.alpha.kubernetes.io/pod"] = "localhost/seccomp.json"
        # Podman 4.3 races removing a finished "once" init container; keep it.
        # It reads this from the Deployment's own annotations.
        d["metadata"].setdefault("annotations", {})["io.podman.annotations.init.container.type"] = "always"
        # Podman 4.3 ignores procMount: Unmasked (and passes no pod annotation
        # to a container): our precreate hook does it instead, for the
        # containers that run the image's entrypoint (tini, then mcpgate).
        if any(c.get("securityContext", {}).get("procMount") == "Unmasked" for c in pod["containers"]):
            hooks = os.path.join(os.path.dirname(sys.argv[2]), "hooks")
            os.makedirs(hooks)
            with open(os.path.join(hooks, "mcpgate-unmask-proc.json"), "w") as f:
                json.dump({"version": "1.0.0",
                           "hook": {"path": os.path.join(os.environ["HERE"], "docker/podman-unmask-proc.py")},
                           "when": {"commands": ["^/usr/bin/tini$"]},
                           "stages": ["precreate"]}, f)
        for c in pod["initContainers"] + pod["containers"]:
            c["image"] = os.environ["IMAGE"]
        pod["containers"][0]["ports"][0].update(hostIP="127.0.0.1", hostPort=int(os.environ["PORT"]))
        keys = os.path.join(os.path.dirname(sys.argv[2]), "keys")
        for v in pod["volumes"]:
            if "secret" in v:
                v.pop("secret")
                v["hostPath"] = {"path": keys, "type": "Directory"}
        for e in pod["containers"][0]["env"]:
            if "valueFrom" in e:
                e.pop("valueFrom")
                e["value"] = open(os.path.join(keys, "secret-store.key")).read().strip()
    out.append(d)
yaml.safe_dump_all(out, open(sys.argv[2], "w"), sort_keys=False)
PY
mkdir -p "$work/hooks"
podman --hooks-dir "$work/hooks" kube play --seccomp-profile-root "$here/docker" "$work/play.yaml" >"$work/play.log" 2>&1 || { cat "$work/play.log"; exit 1; }
echo "ok: podman kube play started the pod"
fail() { echo "kube-test: FAIL: $*" >&2; podman pod logs --tail 20 "$(podman pod ps -q | head -1)" >&2 || true; exit 1; }
for _ in $(seq 150); do
  node -e "fetch('http://127.0.0.1:$port/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" && break
  sleep 0.2
done
out=$(node tests/deploy/sdk_call.mjs "http://127.0.0.1:$port/mcp/everything" --token "$token" --calls 3) ||
  fail "the SDK client's calls through the pod failed"
echo "ok: SDK client through the pod: $out"
ctr=$(podman ps -q --filter 'name=^mcpgate-pod-0-mcpgate$')
who=$(podman exec "$ctr" id -u) && [ "$who" = 10001 ] || fail "the gateway runs as uid '$who', not 10001"
! podman exec "$ctr" touch /usr/x 2>/dev/null || fail "the root filesystem is writable"
echo "ok: the gateway runs as uid 10001 on a read-only root"
echo "kube-test: 3 passed, 0 failed"
