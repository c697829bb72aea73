#!/bin/sh
# A Debian 12 base image built from Debian's own packages (for machines that reach Debian's mirror but no image
# registry): mmdebstrap writes the root filesystem as a tarball, podman imports it as localhost/debian-bookworm.
set -eu
command -v mmdebstrap >/dev/null || { echo "install mmdebstrap (apt-get install mmdebstrap)" >&2; exit 1; }
command -v podman >/dev/null || { echo "install podman (apt-get install podman)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mmdebstrap --variant=minbase --include=ca-certificates bookworm "$tmp/rootfs.tar"
podman import "$tmp/rootfs.tar" localhost/debian-bookworm
