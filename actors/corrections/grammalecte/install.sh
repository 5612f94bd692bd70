#!/usr/bin/env bash
# Installs Grammalecte's Python core (GPL-3) for palabre's offline grammar checker, lightly:
# Debian's libreoffice-grammalecte package is downloaded (not installed: it depends on
# libreoffice-core) and only its pythonpath/grammalecte/ folder (~18 MB, 27 MB with bytecode) is
# extracted into the cache folder palabre looks in. The bytecode is compiled here, once: compiling
# the 3.4 MB rule graph at run time would cost the sidecar ~390 MB and ~3 s on every start.
#   bash actors/corrections/grammalecte/install.sh [DEST]   (default $PALABRE_CACHE_DIR/grammalecte; that is
#   $XDG_CACHE_HOME/palabre, else ~/.cache/palabre, when unset — as palabre reads it, core/cacheDir.ts)
set -euo pipefail
DEST="${1:-${PALABRE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/palabre}/grammalecte}"
PY="${GRAMMALECTE_PYTHON:-python3}"
if [ -f "$DEST/pythonpath/grammalecte/fr/gc_engine.py" ]; then
  echo "Grammalecte already in $DEST"; exit 0
fi
command -v apt-get >/dev/null || { echo "apt-get not found: install Grammalecte by hand (https://grammalecte.net, Python version) and set GRAMMALECTE_PATH" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
( cd "$WORK" && apt-get download -q libreoffice-grammalecte 2>/dev/null ) || {
  echo "apt-get download libreoffice-grammalecte failed (run apt-get update first?)" >&2; exit 1; }
dpkg-deb -x "$WORK"/libreoffice-grammalecte_*.deb "$WORK/x"
SRC="$WORK/x/usr/lib/libreoffice/share/extensions/grammalecte/pythonpath/grammalecte"
mkdir -p "$DEST/pythonpath"
rm -rf "$DEST/pythonpath/grammalecte.tmp"
cp -r "$SRC" "$DEST/pythonpath/grammalecte.tmp"
cp "$WORK"/x/usr/share/doc/libreoffice-grammalecte/copyright "$DEST/COPYRIGHT" 2>/dev/null || true
# unchecked-hash: the bytecode stays valid when the folder is copied (mtimes lost), so the sidecar
# never recompiles the rule graph (that is the ~390 MB peak).
PYTHONDONTWRITEBYTECODE= "$PY" -m compileall -q --invalidation-mode unchecked-hash "$DEST/pythonpath/grammalecte.tmp" >/dev/null
# compileall records the .tmp path in the bytecode; harmless (only used in tracebacks).
mv "$DEST/pythonpath/grammalecte.tmp" "$DEST/pythonpath/grammalecte"
echo "Grammalecte installed in $DEST ($(du -sh "$DEST" | cut -f1))"
