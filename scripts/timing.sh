# Step timing for scripts/test.sh (sourced, not run).
#
#   step NAME CMD...      runs CMD in the foreground, timed
#   step_bg NAME CMD...   runs CMD in the background, timed, its output in a log
#   wait_bg NAME [show]   waits for a background step; its log is shown when it
#                         failed, or always with "show"
#   timing_summary        the table of every step (test.sh prints it at exit)
#
# Each step appends "start<TAB>seconds<TAB>status<TAB>name" to $TIMING_FILE, so
# background steps (subshells) are recorded too. Times are whole seconds from
# the run's start: enough to see where ten minutes go.

TIMING_START="$(date +%s)"
TIMING_FILE="$(mktemp)"
TIMING_LOGS="$(mktemp -d)"
declare -A TIMING_PIDS=()

timing_now() { echo $(($(date +%s) - TIMING_START)); }

step() {
  local name="$1" start status=0
  shift
  start="$(timing_now)"
  echo "test.sh: [$(timing_now)s] $name" >&2
  "$@" || status=$?
  printf '%s\t%s\t%s\t%s\n' "$start" "$(($(timing_now) - start))" "$([ $status = 0 ] && echo ok || echo "FAILED($status)")" "$name" >>"$TIMING_FILE"
  return $status
}

step_bg() {
  local name="$1"
  shift
  ( step "$name" "$@" ) >"$TIMING_LOGS/$name.log" 2>&1 &
  TIMING_PIDS[$name]=$!
}

wait_bg() { # NAME [show]: with "show", its output is shown even when it passed
  local name="$1" show="${2:-}" status=0
  wait "${TIMING_PIDS[$name]}" || status=$?
  if [ $status != 0 ]; then
    echo "test.sh: $name failed (exit $status); its output:" >&2
  elif [ "$show" = show ]; then
    echo "test.sh: $name:" >&2
  fi
  if [ $status != 0 ] || [ "$show" = show ]; then
    cat "$TIMING_LOGS/$name.log" >&2
    rm -f "$TIMING_LOGS/$name.log" # shown once: the exit does not show it again
  fi
  return $status
}

timing_summary() {
  local total
  total="$(timing_now)"
  {
    echo
    echo "test.sh timing (wall clock, seconds; background steps overlap the others):"
    printf '  %6s %6s  %-10s %s\n' start took status step
    sort -n "$TIMING_FILE" | while IFS=$'\t' read -r start took status name; do
      printf '  %6s %6s  %-10s %s\n' "$start" "$took" "$status" "$name"
    done
    printf '  %6s %6s  %-10s %s\n' 0 "$total" "" "whole run ($((total / 60)) min $((total % 60)) s)"
  } >&2
  rm -rf "$TIMING_FILE" "$TIMING_LOGS"
}
