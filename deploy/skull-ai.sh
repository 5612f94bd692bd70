#!/usr/bin/env bash
# Wrapper of the skull-ai systemd unit (the spec's /opt/Skull/bin/skull-ai.sh, adapted to palabre):
# runs `palabre skull` from the installed checkout. Configuration comes from the environment
# (the unit's EnvironmentFile), see docs/skull.md.
set -euo pipefail
PALABRE_HOME="${PALABRE_HOME:-/opt/palabre}"
NODE_BIN="${NODE_BIN:-$(command -v node)}"
cd "$PALABRE_HOME"
# A Pi Zero 2 W has 512 MB for everything: keep V8's heap small (the service needs ~30 MB).
export NODE_OPTIONS="${NODE_OPTIONS:---max-old-space-size=96 --max-semi-space-size=1}"
exec "$NODE_BIN" "$PALABRE_HOME/bin/palabre.js" skull "$@"
