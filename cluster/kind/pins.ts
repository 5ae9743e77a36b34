/** The kind release the node image below was built for; CI installs this one (.github/workflows/conformance.yml). */
export const KIND_VERSION = 'v0.27.0';

/**
 * The oldest kind that can run KIND_NODE_IMAGE: the image ships containerd 2, and kind before
 * v0.27.0 cannot load images into it (`kind load` fails; kubernetes-sigs/kind#3853).
 */
export const MIN_KIND_VERSION = 'v0.27.0';

/**
 * The kind node image every lane runs on: Kubernetes v1.32.2, as listed (tag and digest) in
 * the release notes of kind v0.27.0 (github.com/kubernetes-sigs/kind/releases/tag/v0.27.0).
 * The digest is the multi-arch manifest list, so it resolves on amd64 and arm64 alike. Newer
 * kind releases run it too (best effort, per kind's node image policy); when moving CI to a
 * newer kind, take the matching image from that release's notes.
 */
export const KIND_NODE_IMAGE = 'kindest/node:v1.32.2@sha256:f226345927d7e348497136874b6d207e0b32cc52154ad8323129352923a3142f';
