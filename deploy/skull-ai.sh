#!/usr/bin/env bash
# Wrapper of the skull-ai systemd unit (the spec's /opt/Skull/bin/skull-ai.sh, adapted to palabre):
# runs `palabre skull` from the installed checkout. Configuration comes from the environment
# (the unit's EnvironmentFile), see docs/skull.md.
set -euo pipefail
PALABRE_HOME="${PALABRE_HOME:-/opt/palabre}"
NODE_BIN="${NODE_BIN:-$(command -v node)}"
cd "$PALABRE_HOME"
# A Pi Zero 2 W has 512 MB for everything. The service waits on the network, not the CPU, so V8's
# lite mode (no optimising compiler) and small heaps cost nothing noticeable and save ~25 MB of
# RSS (bench/skull-start.ts). V8 refuses these in NODE_OPTIONS: they go on the command line.
NODE_FLAGS="${NODE_FLAGS:---max-old-space-size=96 --max-semi-space-size=1 --lite-mode}"
# shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
exec "$NODE_BIN" $NODE_FLAGS "$PALABRE_HOME/bin/palabre.js" skull "$@"
