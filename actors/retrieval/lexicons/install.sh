#!/usr/bin/env bash
# Installs the dictionaries the docs assistant expands questions with (docs/docs-assistant.md
# § Analysis), from Debian packages that are downloaded, not installed, and extracted into the
# cache folder palabre looks in:
#   - mythes-fr, mythes-en-us: LibreOffice's French and English thesauri (MyThes .idx/.dat);
#   - dict-freedict-fra-eng, dict-freedict-eng-fra: FreeDict's French ↔ English dictionaries (dictd).
# Without them the assistant ranks without expansion and says so at start.
#   bash actors/retrieval/lexicons/install.sh [DEST]   (default $PALABRE_CACHE_DIR/lexicons; that is
#   $XDG_CACHE_HOME/palabre, else ~/.cache/palabre, when unset — as palabre reads it, core/cacheDir.ts)
set -euo pipefail
DEST="${1:-${PALABRE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/palabre}/lexicons}"
FILES=(thes_fr.idx thes_fr.dat th_en_US_v2.idx th_en_US_v2.dat freedict-fra-eng.index freedict-fra-eng.dict.dz freedict-eng-fra.index freedict-eng-fra.dict.dz)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# The expansion table (expansionTable.ts) is built from the dictionaries once, here, rather than
# by the first `palabre serve` (a few seconds and ~100 MB more at that start); a start that finds
# it missing or older than the dictionaries builds it itself.
prepare() {
  ( cd "$ROOT" && node --import tsx --input-type=module -e "
    const { loadLexicon } = await import('./actors/retrieval/lexicons/lexicon.ts');
    const r = loadLexicon(process.argv[1]);
    console.log(r.error ?? 'Expansion table ready: ' + r.notice);
    process.exit(r.error ? 1 : 0);" "$DEST" ) || echo "Expansion table not built now: the first start builds it" >&2
}
missing=0
for f in "${FILES[@]}"; do [ -f "$DEST/$f" ] || missing=1; done
if [ "$missing" = 0 ]; then echo "Dictionaries already in $DEST"; prepare; exit 0; fi
command -v apt-get >/dev/null || { echo "apt-get not found: copy ${FILES[*]} into $DEST by hand" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
( cd "$WORK" && apt-get download -q mythes-fr mythes-en-us dict-freedict-fra-eng dict-freedict-eng-fra 2>/dev/null ) || {
  echo "apt-get download of the dictionaries failed (run apt-get update first?)" >&2; exit 1; }
for d in "$WORK"/*.deb; do dpkg-deb -x "$d" "$WORK/x"; done
mkdir -p "$DEST"
cp "$WORK"/x/usr/share/mythes/thes_fr.* "$WORK"/x/usr/share/mythes/th_en_US_v2.* "$DEST/"
cp "$WORK"/x/usr/share/dictd/freedict-fra-eng.* "$WORK"/x/usr/share/dictd/freedict-eng-fra.* "$DEST/"
for p in mythes-fr mythes-en-us dict-freedict-fra-eng dict-freedict-eng-fra; do
  cp "$WORK/x/usr/share/doc/$p/copyright" "$DEST/COPYRIGHT.$p" 2>/dev/null || true
done
echo "Dictionaries installed in $DEST ($(du -sh "$DEST" | cut -f1))"
prepare
