#!/usr/bin/env bash
# Install the headless Chromium that the `webnn-chromium` adapter drives: the npm registry package
# @sparticuz/chromium (a Chromium built with WebNN's LiteRT/XNNPACK CPU backend; Debian's chromium
# has no WebNN backend). Uses only the npm registry (`npm pack`) and, when a library is missing,
# Debian packages (libnss3 libnspr4 libexpat1). Brotli is unpacked with Node's zlib: Python's
# standard library has no brotli decoder.
#
#   tools/install-webnn-chromium.sh [DIR]     # default DIR: .webnn-chromium (git-ignored)
#
# The adapter looks in $SPECGEN_WEBNN_CHROMIUM, then ./.webnn-chromium, then
# ~/.cache/specgen/webnn-chromium. Re-running with the same version does nothing.
set -euo pipefail
VERSION="${SPECGEN_WEBNN_CHROMIUM_VERSION:-153.0.0}"
DIR="${1:-${SPECGEN_WEBNN_CHROMIUM:-.webnn-chromium}}"

if [ -x "$DIR/chromium" ] && [ "$(cat "$DIR/VERSION" 2>/dev/null)" = "$VERSION" ]; then
  echo "webnn-chromium: @sparticuz/chromium $VERSION already in $DIR"
  exit 0
fi
for tool in npm node tar; do
  command -v "$tool" >/dev/null || { echo "webnn-chromium: needs $tool (Debian: apt-get install nodejs npm)" >&2; exit 1; }
done

missing=()
for pkg in libnss3 libnspr4 libexpat1; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q "${missing[@]}" >/dev/null
  else
    echo "webnn-chromium: missing Debian packages: ${missing[*]} (apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@sparticuz/chromium@$VERSION" >/dev/null)
tar -xzf "$tmp"/sparticuz-chromium-"$VERSION".tgz -C "$tmp" package/bin/chromium.br package/bin/swiftshader.tar.br
node -e '
  const fs = require("fs"), zlib = require("zlib");
  for (const [src, dst] of [[process.argv[1], process.argv[2]], [process.argv[3], process.argv[4]]])
    fs.writeFileSync(dst, zlib.brotliDecompressSync(fs.readFileSync(src)));
' "$tmp/package/bin/chromium.br" "$tmp/chromium" "$tmp/package/bin/swiftshader.tar.br" "$tmp/swiftshader.tar"

rm -rf "$DIR.new"
mkdir -p "$DIR.new"
mv "$tmp/chromium" "$DIR.new/chromium"
chmod 755 "$DIR.new/chromium"
# SwiftShader's libraries must sit beside the binary, or ANGLE fails and WebNN is disabled.
tar -xf "$tmp/swiftshader.tar" -C "$DIR.new"
echo "$VERSION" > "$DIR.new/VERSION"
rm -rf "$DIR"
mv "$DIR.new" "$DIR"
echo "webnn-chromium: @sparticuz/chromium $VERSION installed in $DIR"
